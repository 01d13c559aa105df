import io
import json
import tarfile

import pytest

from grader.labs import load_lab
from grader.paths import SOLUTIONS_DIR, STARTER_DIR
from grader.intake import SubmissionError, unpack
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
