"""Attacks on the way in: a submission's name, its archive, and what the reports say of the
secret. Each is graded as a TA grades it (the grader's CLI, make check, grader batch)."""

import gzip
import io
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from grader import report as reports
from grader.grade import Grader
from grader.intake import Source
from grader.intake import MAX_STREAM_BYTES, SubmissionError, safe_id, unpack
from grader.labs import load_lab
from grader.paths import BUILD_DIR, KIT_ROOT, SOLUTIONS_DIR
from grader.testing import EMU_READY


HERE = Path(__file__).resolve().parent
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                                reason="nvcc (the CUDA toolkit) is not installed")
needs_emu = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
HOSTILE_NAMES = ["x$(shell touch PROOF-make)", "y$(touch PROOF-sh)", "z';touch PROOF-quote;'", "..", "...tar.gz"]


def _solution_folder(parent: Path, name: str) -> Path:
    folder = parent / name
    (folder / "increment").mkdir(parents=True)
    shutil.copy(SOLUTIONS_DIR / "increment" / "increment.c", folder / "increment" / "increment.c")
    return folder


def _proofs(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in folder.rglob("PROOF*")]


@pytest.mark.parametrize("name", ["a b", "x$(shell id)", "../../etc", "..", ".", "", "\x1b[31mred", "a/b"])
def test_safe_id_is_a_plain_folder_name(name):
    made = safe_id(name)
    assert made and made not in (".", "..") and all(c.isalnum() or c in "._-" for c in made)
    assert safe_id(name) == made and safe_id(name + "x") != made


@needs_emu
def test_a_submission_name_never_runs_as_code(tmp_path):
    """Folders named to run a command through make or a shell are graded as data, by the
    grader's CLI and by make check SUB=; nothing they name is run, and build/ is intact."""
    marker = BUILD_DIR / "hostile-marker"
    marker.parent.mkdir(exist_ok=True)
    marker.write_text("build/ must survive\n")
    for name in HOSTILE_NAMES[:3]:
        folder = _solution_folder(tmp_path, name)
        for cmd in ([sys.executable, "-m", "grader", "check", "increment", "--submission", str(folder), "--emu",
                     "--quiet"],
                    ["make", "-s", "check", "LAB=increment", f"SUB={folder}", "EMU=1", "GRADER_ARGS=--quiet"]):
            proc = subprocess.run(cmd, cwd=KIT_ROOT, capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert "score: 100 / 100" in proc.stdout
    assert _proofs(KIT_ROOT, tmp_path, Path.cwd()) == []
    assert marker.exists()


def test_a_tarball_named_dots_stays_in_its_folder(tmp_path):
    """'...tar.gz' once unpacked into build/unpacked/.. and the intake then removed build/."""
    marker = BUILD_DIR / "hostile-marker"
    marker.parent.mkdir(exist_ok=True)
    marker.write_text("build/ must survive\n")
    folder = _solution_folder(tmp_path, "src")
    tarball = tmp_path / "...tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(folder / "increment" / "increment.c", arcname="increment/increment.c")
    proc = subprocess.run([sys.executable, "-m", "grader", "check", "increment", "--submission", str(tarball), "--emu",
                           "--quiet"], cwd=KIT_ROOT, capture_output=True, text=True, timeout=600)
    assert marker.exists()
    if EMU_READY:
        assert "score: 100 / 100" in proc.stdout, proc.stdout + proc.stderr


def test_a_header_bomb_is_refused_before_it_is_read(tmp_path):
    """A small tarball whose pax header claims (and holds) far more than any source file: refused
    once the decompressed stream passes MAX_STREAM_BYTES, in a bounded amount of memory."""
    bomb = tmp_path / "bomb.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("increment/increment.c")
        info.pax_headers = {"comment": "A" * (MAX_STREAM_BYTES + (8 << 20))}
        data = b"int x;\n"
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    bomb.write_bytes(gzip.compress(raw.getvalue(), compresslevel=9))
    assert bomb.stat().st_size < 1 << 20
    code = ("import resource, sys; from pathlib import Path; from grader.intake import unpack, SubmissionError\n"
            "try:\n    unpack(Path(sys.argv[1]), Path(sys.argv[2]))\nexcept SubmissionError as e:\n    print(e)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)")
    proc = subprocess.run([sys.executable, "-c", code, str(bomb), str(tmp_path / "dest")], cwd=KIT_ROOT,
                          capture_output=True, text=True, timeout=120)
    message, peak_mb = proc.stdout.strip().splitlines()
    assert "unpacks to more than" in message
    assert int(peak_mb) < 200, f"the intake used {peak_mb} MB"
    assert not (tmp_path / "dest").exists()


def test_a_refused_member_name_prints_no_escape_codes(tmp_path):
    tarball = tmp_path / "sub.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        info = tarfile.TarInfo("increment/\x1b[32mAC\x1b[0m\nn1 AC 10/10.c")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(SubmissionError) as raised:
        unpack(tarball, tmp_path / "dest", load_lab("increment"))
    assert "\x1b" not in str(raised.value) and "\n" not in str(raised.value)


@needs_emu
def test_students_never_see_the_secret_path_or_fingerprint(tmp_path):
    secret_file = tmp_path / "instructor-secret"
    secret_file.write_text("a-secret-of-the-instructor-0123456789\n")
    lab = load_lab("increment")
    report = Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, log=lambda *_: None,
                    secret_file=secret_file).grade()
    grader_secret = Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, log=lambda *_: None,
                           secret_file=secret_file).secret
    student_view = json.dumps(reports.to_gradescope(report))
    assert str(secret_file) not in student_view and grader_secret.fingerprint not in student_view
    assert "hidden" in student_view  # they are told hidden cases ran
    assert any(str(secret_file) in note for note in report.staff_notes)  # the TA is told where


@needs_nvcc
def test_a_cublas_call_in_place_of_the_kernels_is_refused(tmp_path):
    """matmul's naive and tiled functions calling cuBLAS (linked for the bench) once got 80/80 on
    an H100: the symbol check refuses the build, naming the call."""
    from grader.build import build_lab
    result = build_lab(load_lab("matmul"), src_root=HERE / "matmul_cublas", build_dir=tmp_path / "build", emu=False, submission=True)
    assert not result.ok and not result.grader_error
    assert "matmul.c calls cublas" in result.reason and "(cuBLAS)" in result.reason
