"""labs/emu/conformance/pack_sources.py on a made-up HeCBench export: sources and build files
go in, the data of a program's folder goes in up to the limits, build outputs never do, and a
link is packed as the file it names."""

import os
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACK = os.path.join(ROOT, "labs", "emu", "conformance", "pack_sources.py")


def test_a_hecbench_export_is_packed_without_build_outputs_or_too_much_data(tmp_path):
    src = tmp_path / "HeCBench" / "src"
    for folder in ("small-cuda", "big-cuda", "small-sycl", "include", "unused-omp"):
        (src / folder).mkdir(parents=True)
    (src / "small-cuda" / "Makefile").write_text("CFLAGS = -I../include\nrun: main\n\t./main ../small-sycl/input.txt\n")
    (src / "small-cuda" / "main.cu").write_text("int main() {}\n")
    (src / "small-cuda" / "main").write_bytes(b"\x7fELF" + bytes(100))  # a build's output, not the suite's
    (src / "small-cuda" / "main.o").write_bytes(bytes(100))
    (src / "small-cuda" / "table.txt").write_text("1 2 3\n")
    (src / "small-sycl" / "input.txt").write_text("data\n")
    os.symlink("../small-sycl/input.txt", src / "small-cuda" / "input.txt")
    (src / "include" / "common.h").write_text("#pragma once\n")
    (src / "unused-omp" / "main.cpp").write_text("int main() {}\n")
    (src / "big-cuda" / "Makefile").write_text("run: main\n\t./main weights.bin\n")
    (src / "big-cuda" / "main.cu").write_text("int main() {}\n")
    (src / "big-cuda" / "weights.bin").write_bytes(bytes(300_000))
    (src / "big-cuda" / "small.txt").write_text("kept: a small file goes in wherever it is\n")
    tarball = tmp_path / "out" / "sources.tar.gz"
    result = subprocess.run([sys.executable, PACK, "--hecbench", str(tmp_path / "HeCBench"), "--max-data-mb", "1",
                             "--max-folder-data-mb", "0.2", "--output", str(tarball)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert sorted(members) == ["hecbench/src/big-cuda/Makefile", "hecbench/src/big-cuda/main.cu",
                               "hecbench/src/big-cuda/small.txt",
                               "hecbench/src/include/common.h", "hecbench/src/small-cuda/Makefile",
                               "hecbench/src/small-cuda/input.txt", "hecbench/src/small-cuda/main.cu",
                               "hecbench/src/small-cuda/table.txt", "hecbench/src/small-sycl/input.txt"]
    assert members["hecbench/src/small-cuda/input.txt"].isfile()  # the linked file itself
    assert "data left out (over --max-folder-data-mb): src/big-cuda" in result.stdout
