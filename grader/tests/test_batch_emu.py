"""`python3 -m grader batch` on this machine under the CPU emulator, for real: the reference
solution (a tarball from `make submit`), the untouched starter, a file that does not compile and
a tarball intake refuses; then a rerun that grades nothing again. (The Slurm scheduler's real
test is tests/cluster/test_slurm_batch.py.)"""

import csv
import io
import json
import shutil
import tarfile

import pytest

from grader.cli import main
from grader.labs import load_lab
from grader.paths import SOLUTIONS_DIR, STARTER_DIR
from grader.submit import package
from grader.testing import EMU_READY

pytestmark = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")


def test_local_batch_under_the_emulator(tmp_path, capsys):
    folder, out = tmp_path / "submissions", tmp_path / "grades"
    folder.mkdir()
    package(load_lab("increment"), SOLUTIONS_DIR / "increment", folder / "ada.tar.gz")
    shutil.copytree(STARTER_DIR / "increment", folder / "bo" / "increment")
    shutil.copytree(STARTER_DIR / "increment", folder / "cy" / "increment")
    with (folder / "cy/increment/increment.c").open("a") as f:
        f.write("\nthis is not C;\n")
    with tarfile.open(folder / "di.tar.gz", "w:gz") as tar:
        link = tarfile.TarInfo("increment/increment.c")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
        readme = tarfile.TarInfo("increment/notes.txt")
        tar.addfile(readme, io.BytesIO(b""))
    argv = ["batch", "increment", str(folder), "--emu", "--jobs", "2", "--out", str(out)]

    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "4 to grade" in text and "3 graded, 0 not graded, 1 refused" in text
    rows = {r["student"]: r for r in csv.DictReader((out / "class.csv").open())}
    assert (rows["ada"]["verdict"], rows["ada"]["score"]) == ("AC", rows["ada"]["max_score"])
    assert rows["bo"]["verdict"] == "RE" and "TODO" in rows["bo"]["reason"]
    assert rows["cy"]["verdict"] == "CE" and "error" in rows["cy"]["reason"]
    assert rows["di"]["status"] == "refused" and "link" in rows["di"]["reason"]
    public = [c for c in load_lab("increment").cases if c.group == "public"]
    assert (out / "logs" / "ada.log").read_text().count("AC (correct)") == len(public)
    summary = json.loads((out / "class.json").read_text())
    assert summary["key"]["emu"] is True and summary["counts"]["total"] == 4
    before = {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()}

    assert main(argv) == 0
    assert "0 to grade, 4 already graded" in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()} == before
