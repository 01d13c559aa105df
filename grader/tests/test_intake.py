"""Intake: a submission, folder or tarball, is checked before anything is built; each refusal
says what to fix."""

import io
import json
import os
import tarfile

import pytest

from grader.labs import load_lab
from grader.intake import MAX_MEMBERS, SubmissionError, folder_files, folder_sha256, intake, unpack

GOOD = b"// my increment\n#include \"increment.h\"\n"


def tarball(tmp_path, files, name="sub.tar.gz"):
    path = tmp_path / name
    with tarfile.open(path, "w:gz") as tar:
        for member, data in files:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_good_tarball_keeps_only_the_lab_files(tmp_path):
    manifest = json.dumps({"lab": "increment"}).encode()
    dest = intake(tarball(tmp_path, [("increment/increment.c", GOOD), ("increment/MANIFEST.json", manifest)]),
                  load_lab("increment"), tmp_path / "out")
    assert (dest / "increment/increment.c").read_bytes() == GOOD


@pytest.mark.parametrize("files, reason", [
    ([("increment/increment.c", GOOD), ("increment/notes.txt", b"hi\n")],
     "'increment/notes.txt' is not a source file of lab increment (it takes increment.c, MANIFEST.json)"),
    ([("matmul/increment.c", GOOD)], "is in a folder named 'matmul', but this is lab increment"),
    ([("increment/other.c", GOOD)], "not a source file of lab increment"),
    ([("increment/MANIFEST.json", b"{}")], "increment.c missing from sub.tar.gz: lab increment needs increment.c"),
    ([("increment/increment.c", GOOD), ("increment/MANIFEST.json", b'{"lab": "bfs"}')],
     "was packaged for lab 'bfs', not increment"),
    ([("increment/increment.c", b"int x;\x1b[2J\n")], "has a control character (byte 0x1b) on line 1"),
    ([("increment/increment.c", GOOD), ("increment/increment.c", GOOD)], "is in the tarball twice"),
    ([("increment/increment.c", b"x" * (2 << 20))], "bytes; the limit is"),
])
def test_refusals_say_what_to_fix(files, reason, tmp_path):
    with pytest.raises(SubmissionError) as refused:
        intake(tarball(tmp_path, files), load_lab("increment"), tmp_path / "out")
    assert reason in str(refused.value)
    assert not (tmp_path / "out").exists()


def test_too_many_entries(tmp_path):
    files = [(f"increment/f{i}.c", b"x\n") for i in range(MAX_MEMBERS + 1)]
    with pytest.raises(SubmissionError, match=f"more than {MAX_MEMBERS} entries"):
        unpack(tarball(tmp_path, files), tmp_path / "out")


def test_device_entry_is_refused(tmp_path):
    path = tmp_path / "dev.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("increment/increment.c")
        info.type = tarfile.CHRTYPE
        tar.addfile(info)
    with pytest.raises(SubmissionError, match="is a device, pipe or other special file"):
        intake(path, load_lab("increment"), tmp_path / "out")


def test_lab_is_read_from_the_tarball_folder_when_not_given(tmp_path):
    with pytest.raises(SubmissionError, match="not a source file of lab increment"):
        unpack(tarball(tmp_path, [("increment/increment.c", GOOD), ("increment/run.sh", b"echo\n")]),
               tmp_path / "out")


def test_folder_submission_copies_only_the_lab_files(tmp_path):
    folder = tmp_path / "alice"
    (folder / "increment").mkdir(parents=True)
    (folder / "increment/increment.c").write_bytes(GOOD)
    (folder / "increment/a.out").write_bytes(b"\x7fELF\0")
    dest = intake(folder, load_lab("increment"), tmp_path / "out")
    assert sorted(p.name for p in (dest / "increment").iterdir()) == ["increment.c"]


def test_folder_submission_with_a_link_is_refused(tmp_path):
    folder = tmp_path / "mallory"
    folder.mkdir()
    answer = tmp_path / "solutions" / "increment.c"
    os.symlink(answer, folder / "increment.c")
    with pytest.raises(SubmissionError, match=rf"increment.c is a link \(to '{answer}'\)"):
        intake(folder, load_lab("increment"), tmp_path / "out")


def test_the_batch_hashes_the_files_intake_takes_by_the_same_rules(tmp_path):
    """One definition of a folder submission's files (intake.folder_files): what intake copies
    is what the batch hashes; a link is refused by one and hashed as a link by the other."""
    from grader import batch
    lab = load_lab("increment")
    folder = tmp_path / "alice"
    (folder / "increment").mkdir(parents=True)
    (folder / "increment/increment.c").write_bytes(GOOD)
    (folder / "increment/notes.txt").write_bytes(b"not the lab's: neither copied nor hashed\n")
    taken = folder_sha256(folder, lab)
    assert [f.name for f in folder_files(folder, lab)] == ["increment.c"]
    assert taken == batch.submission_sha256(folder, lab)
    (folder / "increment/notes.txt").write_bytes(b"changed\n")
    assert folder_sha256(folder, lab) == taken
    (tmp_path / "elsewhere.c").write_bytes(GOOD)
    (folder / "increment/increment.c").unlink()
    (folder / "increment/increment.c").symlink_to(tmp_path / "elsewhere.c")
    assert "is a link" in folder_files(folder, lab)[0].problem
    assert folder_sha256(folder, lab) not in (taken, folder_sha256(tmp_path / "empty", lab))
    with pytest.raises(SubmissionError, match="is a link"):
        intake(folder, lab, tmp_path / "out")


def test_old_intake_result_is_replaced(tmp_path):
    dest = tmp_path / "out"
    (dest / "increment").mkdir(parents=True)
    (dest / "increment/stale.c").write_text("old")
    intake(tarball(tmp_path, [("increment/increment.c", GOOD)]), load_lab("increment"), dest)
    assert sorted(p.name for p in (dest / "increment").iterdir()) == ["increment.c"]
