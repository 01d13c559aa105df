import io
import json
import re
import tarfile
from types import SimpleNamespace

import pytest

from grader.labs import load_lab
from grader.paths import SOLUTIONS_DIR, STARTER_DIR
from grader.intake import SubmissionError, source_for, unpack
from grader.submit import package


def test_package_starter_warns_about_todos(tmp_path):
    lab = load_lab("increment")
    out = tmp_path / "increment-submission.tar.gz"
    warnings = package(lab, STARTER_DIR / "increment", out)
    assert any(w.startswith("TODO left: increment.c:") for w in warnings)
    with tarfile.open(out) as tar:
        names = sorted(tar.getnames())
        manifest = json.load(tar.extractfile("increment/MANIFEST.json"))
    assert names == ["increment/MANIFEST.json", "increment/increment.c"]
    assert manifest["lab"] == "increment" and set(manifest["files"]) == {"increment.c"}


def done_increment() -> str:
    """The starter with every TODO done, its TODO comments kept, as a student leaves it."""
    text = (STARTER_DIR / "increment/increment.c").read_text()
    text = text.replace("__global__ void increment_kernel(float *data, int n)\n{\n}",
                        "__global__ void increment_kernel(float *data, int n)\n{\n"
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) data[i] += 1.0f;\n}")
    for todo in re.findall(r'LAB_TODO\("[^"]*"\);', text):
        text = text.replace(todo, "/* done */ (void)0;")
    return text


def test_package_warns_only_about_work_left_undone(tmp_path):
    # The header's "Fill in each TODO" and a TODO comment above written code are not work left.
    lab = load_lab("increment")
    (tmp_path / "done").mkdir()
    (tmp_path / "done/increment.c").write_text(done_increment())
    assert package(lab, tmp_path / "done", tmp_path / "a.tar.gz") == []
    # The starter: each LAB_TODO, and the empty kernel (which has no LAB_TODO to trip at run time).
    warnings = package(lab, STARTER_DIR / "increment", tmp_path / "b.tar.gz")
    assert warnings[0].startswith("TODO left: increment.c:9: increment_kernel is still the starter's (TODO 1: the kernel.")
    assert [w.split(":")[2] for w in warnings] == ["9", "17", "24", "32", "38", "44"]
    # A kernel left empty (a comment added is no work) while the rest is done.
    (tmp_path / "half").mkdir()
    (tmp_path / "half/increment.c").write_text(done_increment().replace(
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) data[i] += 1.0f;\n", "    // later\n"))
    assert [w.split(": ", 1)[1] for w in package(lab, tmp_path / "half", tmp_path / "c.tar.gz")] == \
        ["increment.c:9: increment_kernel is still the starter's (TODO 1: the kernel. Each thread computes its "
         "global index from blockIdx.x, block ...)"]


@pytest.mark.parametrize("lab_id", ["increment", "matmul", "fw", "bfs", "apsp"])
def test_every_labs_solution_packs_without_warnings_and_its_starter_with_one_per_todo(lab_id, tmp_path):
    lab = load_lab(lab_id)
    assert package(lab, SOLUTIONS_DIR / lab_id, tmp_path / "s.tar.gz") == []
    warnings = package(lab, STARTER_DIR / lab_id, tmp_path / "t.tar.gz")
    for name in lab.programs:
        starter = (STARTER_DIR / lab_id / f"{name}.c").read_text()
        undone = len(re.findall(r'^\s*LAB_TODO\("(?!optional|exploration|Exploration)', starter, re.MULTILINE))
        assert sum(w.startswith(f"TODO left: {name}.c:") and "LAB_TODO" in w for w in warnings) == undone


def test_package_solution_has_no_warnings_and_unpacks(tmp_path):
    lab = load_lab("increment")
    out = tmp_path / "s.tar.gz"
    assert package(lab, SOLUTIONS_DIR / "increment", out) == []
    unpack(out, tmp_path / "unpacked")
    assert (tmp_path / "unpacked/increment/increment.c").read_bytes() == \
        (SOLUTIONS_DIR / "increment/increment.c").read_bytes()


def test_package_missing_file(tmp_path):
    with pytest.raises(SubmissionError, match="increment.c is missing"):
        package(load_lab("increment"), tmp_path, tmp_path / "x.tar.gz")


def tarball(tmp_path, add):
    path = tmp_path / "evil.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        add(tar)
    return path


def add_file(tar, name, data=b"int x;\n"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize("build, message", [
    (lambda tar: add_file(tar, "../escape.c"), "points outside"),
    (lambda tar: add_file(tar, "/etc/evil.c"), "points outside"),
    (lambda tar: tar.addfile(_link("increment/increment.c", "/etc/passwd")), "is a link"),
    (lambda tar: add_file(tar, "increment/a.out"), "not a source file"),
    (lambda tar: add_file(tar, "increment/increment.c", b"\x7fELF\0\0"), "not a text file"),
    (lambda tar: add_file(tar, "a/b/c/d.c"), "nested too deep"),
])
def test_unpack_refuses_unsafe_tarballs(build, message, tmp_path):
    with pytest.raises(SubmissionError, match=message):
        unpack(tarball(tmp_path, build), tmp_path / "dest")
    assert not (tmp_path / "escape.c").exists()


def _link(name, target):
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    return info


def test_unpack_not_a_tarball(tmp_path):
    bogus = tmp_path / "x.tar.gz"
    bogus.write_text("hello")
    with pytest.raises(SubmissionError, match="cannot read submission"):
        unpack(bogus, tmp_path / "dest")


def test_two_gradings_of_folders_with_one_name_never_share_a_copy(tmp_path):
    # Two TAs grade their own alice/ at once (or one folder twice): each grading builds from a copy
    # of its own, which goes when the grading ends.
    lab = load_lab("increment")
    folders = [tmp_path / section / "alice" for section in ("a", "b")]
    for folder, text in zip(folders, ("// section a\n", "// section b\n")):
        folder.mkdir(parents=True)
        (folder / "increment.c").write_text(text + done_increment())
    args = [SimpleNamespace(submission=str(folder), solution=False) for folder in folders]
    with source_for(args[0], lab) as first, source_for(args[1], lab) as second:
        assert first.submission and second.submission
        assert first.root != second.root
        assert (first.root / "increment/increment.c").read_text().startswith("// section a")
        assert (second.root / "increment/increment.c").read_text().startswith("// section b")
    assert not first.root.exists() and not second.root.exists()


def test_an_intake_that_fails_midway_leaves_no_half_written_copy(tmp_path, monkeypatch):
    # A disk that fills while the files are written: the error goes up, and nothing is left behind.
    from pathlib import Path
    from grader import intake as intake_module
    write_one = Path.write_bytes
    written = []

    def write_bytes(path, data):
        if written:
            raise OSError(28, "No space left on device")
        written.append(path)
        return write_one(path, data)

    monkeypatch.setattr(Path, "write_bytes", write_bytes)
    dest = tmp_path / "alice"
    with pytest.raises(OSError):
        intake_module._write({"a.c": b"int a;", "b.c": b"int b;"}, dest, None)
    assert list(tmp_path.iterdir()) == []
