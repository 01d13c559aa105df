"""The batch grader's own logic, without building anything: the submissions folder, the grading
key and records (resuming), the class summary, progress, the local scheduler (with a stand-in
for the grading process) and the Slurm side's parsing. The real thing, under the emulator, is in
test_batch_emu.py (local) and tests/cluster/ (Slurm)."""

import csv
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

from grader import batch
from grader.batch import commands as batch_commands, local as batch_local, slurm as batch_slurm
from grader.batch import (GRADED, NOT_GRADED, REFUSED, Plan, Progress, Submission, discover,
                          grading_key, is_final, make_record, overall_verdict, read_record,
                          summary_rows, write_record, write_summary)
from grader.cli import main
from grader.labs import load_lab
from grader.program_files import remove_tree
from support import FAKES

FAKE_TASK = [sys.executable, str(FAKES / "batch_task.py")]


def folder_submission(root: Path, name: str, text: str = "int x;\n") -> Path:
    path = root / name / "increment"
    path.mkdir(parents=True)
    (path / "increment.c").write_text(text)
    return root / name


def tarball_submission(root: Path, name: str, text: str = "int y;\n") -> Path:
    path = root / f"{name}.tar.gz"
    data = text.encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("increment/increment.c")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


LAB = load_lab("increment")


# ---- the folder -------------------------------------------------------------------------------

def test_discover_names_every_entry_and_its_problem(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    folder_submission(folder, "alice")
    tarball_submission(folder, "bob")
    (folder / "notes.txt").write_text("not a submission")
    (folder / ".DS_Store").write_text("hidden: skipped")
    folder_submission(folder, "dave")
    tarball_submission(folder, "dave")
    folder_submission(folder, "eve smith")
    found = {s.student: s for s in discover(folder, LAB)}
    assert sorted(found) == ["alice", "bob", "dave", "eve smith", "notes.txt"]
    assert not found["alice"].problem and not found["bob"].problem
    assert "neither a folder nor a .tar.gz" in found["notes.txt"].problem
    assert "2 entries for one student" in found["dave"].problem
    assert "rename it" in found["eve smith"].problem
    assert len(found["alice"].sha256) == 64 and Path(found["bob"].path).is_file()


def test_folder_hash_follows_content_and_names(tmp_path):
    sub = folder_submission(tmp_path, "alice")
    first = batch.submission_sha256(sub, LAB)
    assert batch.submission_sha256(sub, LAB) == first
    (sub / "increment/increment.c").write_text("int x = 1;\n")
    second = batch.submission_sha256(sub, LAB)
    assert second != first
    (sub / "increment/increment.c").rename(sub / "increment/other.c")  # intake would not take it
    assert batch.submission_sha256(sub, LAB) not in (first, second)


def test_a_folder_bomb_beside_the_files_costs_nothing(tmp_path):
    """1200 nested folders and an 8 GiB sparse file in a student's folder: the hash (and so the
    batch) never walks or reads them; only the lab's own files count."""
    sub = folder_submission(tmp_path, "alice")
    first = batch.submission_sha256(sub, LAB)
    deep = sub / "increment"
    for _ in range(1200):
        deep = deep / "d"
        deep.mkdir()
    with open(sub / "increment" / "sparse.bin", "wb") as f:
        f.truncate(8 << 30)
    try:
        assert batch.submission_sha256(sub, LAB) == first
        assert [s.student for s in discover(tmp_path, LAB)] == ["alice"]
    finally:
        remove_tree(sub)  # pytest's own clean-up recurses, and 1200 levels overflow it


def test_discover_skips_the_output_folder(tmp_path):
    folder_submission(tmp_path, "alice")
    (tmp_path / "grades").mkdir()
    assert [s.student for s in discover(tmp_path, LAB, exclude=tmp_path / "grades")] == ["alice"]


def test_discover_needs_a_folder(tmp_path):
    with pytest.raises(batch.BatchError, match="not a folder"):
        discover(tmp_path / "missing", LAB)


# ---- key, records, resuming -------------------------------------------------------------------

def test_grading_key_depends_on_options():
    key = grading_key("increment", True, ("public",))
    assert key == grading_key("increment", True, ("public",))
    assert key != grading_key("increment", False, ("public",))
    assert key != grading_key("increment", True, ("public", "large"))
    assert key["kit_version"] and len(key["lab_files_sha256"]) == 64


def sub(student="alice", sha="a" * 64) -> Submission:
    return Submission(student, f"/subs/{student}", sha)


def test_a_record_is_final_only_for_the_same_bytes_and_key(tmp_path):
    key = {"k": 1}
    graded = make_record(sub(), key, GRADED, "")
    assert is_final(graded, sub(), key)
    assert not is_final(graded, sub(sha="b" * 64), key)
    assert not is_final(graded, sub(), {"k": 2})
    assert is_final(make_record(sub(), key, REFUSED, "a link"), sub(), key)
    assert not is_final(make_record(sub(), key, NOT_GRADED, "cancelled"), sub(), key)
    assert not is_final(None, sub(), key)


def test_records_are_written_whole(tmp_path):
    record = make_record(sub(), {"k": 1}, GRADED, "")
    write_record(tmp_path, record)
    assert read_record(tmp_path, "alice") == record
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["alice.json"]  # no temporary left
    (tmp_path / "results" / "bob.json").write_text("{half a rec")
    assert read_record(tmp_path, "bob") is None


@pytest.mark.parametrize("verdicts, want", [
    (["AC", "AC"], "AC"), (["AC", "WA"], "WA"), (["WA", "TLE", "AC"], "TLE"),
    (["TLE", "RE"], "RE"), (["CE", "CE"], "CE"), (["SLOW", "AC"], "SLOW"),
])
def test_overall_verdict_is_the_worst_case(verdicts, want):
    cases = [{"case": f"c{i}", "verdict": v, "reason": f"why {i}"} for i, v in enumerate(verdicts)]
    verdict, reason = overall_verdict(cases)
    assert verdict == want
    assert reason.startswith("all") if want == "AC" else reason.endswith(f"why {verdicts.index(want)}")


# ---- the class summary ------------------------------------------------------------------------

def test_summary_has_a_row_for_every_submission(tmp_path):
    key = {"k": 1}
    subs = [sub("alice"), sub("bob"), sub("carol"), Submission("notes.txt", "/subs/notes.txt", "", "not one"),
            sub("dave"), sub("erin")]
    report = {"cases": [{"case": "n1", "verdict": "AC", "reason": "correct", "points": 10.0},
                        {"case": "small", "verdict": "WA", "reason": "element 3", "points": 0.0}],
              "score": 10.0, "max_score": 30.0}
    alice = make_record(subs[0], key, GRADED, "")
    alice.update(verdict="WA", reason="small: element 3", score=10.0, max_score=30.0, report=report)
    write_record(tmp_path, alice)
    write_record(tmp_path, make_record(subs[1], key, NOT_GRADED, "Slurm task 7_1: CANCELLED"))
    write_record(tmp_path, make_record(sub("dave", sha="d" * 64), key, GRADED, ""))  # older bytes
    write_record(tmp_path, make_record(subs[5], {"k": 0}, GRADED, ""))  # another kit
    rows = summary_rows(subs, tmp_path, key)
    by = {r["student"]: r for r in rows}
    assert by["alice"]["status"] == GRADED and by["alice"]["verdict"] == "WA"
    assert by["bob"]["status"] == NOT_GRADED and "CANCELLED" in by["bob"]["reason"]
    assert by["carol"]["status"] == NOT_GRADED and "no result yet" in by["carol"]["reason"]
    assert by["notes.txt"]["status"] == REFUSED
    assert by["dave"]["status"] == NOT_GRADED
    assert by["erin"]["status"] == NOT_GRADED and "another kit" in by["erin"]["reason"]

    csv_path, json_path = write_summary(rows, tmp_path, "increment", key)
    table = list(csv.DictReader(csv_path.open()))
    assert [r["student"] for r in table] == ["alice", "bob", "carol", "notes.txt", "dave", "erin"]
    assert table[0]["n1"] == "AC" and table[0]["small"] == "WA" and table[0]["score"] == "10"
    assert table[0]["max_score"] == "30"
    summary = json.loads(json_path.read_text())
    assert summary["counts"] == {"graded": 1, "not graded": 4, "refused": 1, "total": 6}
    assert summary["students"][0]["cases"][1]["reason"] == "element 3"


# ---- progress ---------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_in_a_log_prints_changes_at_most_every_interval(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(batch.time, "monotonic", clock)
    stream = io.StringIO()
    progress = Progress(10, stream=stream, every_s=30)
    clock.now = 100
    progress.update(0, 0, 2, 8)
    for second in range(1, 29):  # many changes within the interval: no new line
        clock.now = 100 + second
        progress.update(min(second, 8), 0, 2, 8 - min(second, 8))
    clock.now = 131
    progress.update(8, 1, 1, 0)
    progress.update(8, 1, 1, 0)  # unchanged: nothing
    progress.close(9, 1)
    lines = stream.getvalue().splitlines()
    assert lines == ["[batch] 0/10: 0 done, 0 failed, 2 running, 8 queued",
                     "[batch] 9/10: 8 done, 1 failed, 1 running, 0 queued",
                     "[batch] 10/10: 9 done, 1 failed, 0 running, 0 queued"]


# ---- the local scheduler, with a stand-in for each grading process ----------------------------

def make_plan(tmp_path, students, *, emu=True) -> tuple[Plan, Path]:
    subs = [Submission(s, str(tmp_path / "subs" / s), f"{i:064x}") for i, s in enumerate(students)]
    plan = Plan("increment", emu, ["public"], {"k": 1}, str(tmp_path / "out"), "run1",
                batch.chunks(subs, 1))
    plan_path = tmp_path / "out" / "plans" / "run1.json"
    plan.save(plan_path)
    return plan, plan_path


def quiet() -> Progress:
    return Progress(0, stream=io.StringIO())


def test_local_grades_side_by_side_under_emulation(tmp_path):
    plan, plan_path = make_plan(tmp_path, ["meet-a", "meet-b", "meet-c"])
    runner = batch_local.LocalRunner(plan, plan_path, jobs=3, progress=quiet(), task_command=FAKE_TASK,
                                     time_limit_s=60)
    runner.run(None)
    records = [read_record(Path(plan.out), s) for s in ("meet-a", "meet-b", "meet-c")]
    assert [r["status"] for r in records] == [GRADED] * 3, [r["reason"] for r in records]
    assert (runner.done, runner.failed) == (3, 0)


def test_local_runs_one_submission_per_gpu_after_its_build(tmp_path):
    students = [f"gpu-{i}" for i in range(6)]
    plan, plan_path = make_plan(tmp_path, students, emu=False)
    runner = batch_local.LocalRunner(plan, plan_path, jobs=4, progress=quiet(), task_command=FAKE_TASK,
                                     time_limit_s=60)
    runner.run(["0", "1"])
    records = [read_record(Path(plan.out), s) for s in students]
    assert all(r["status"] == GRADED for r in records), [r["reason"] for r in records]
    used = {p.name.rsplit("-on-", 1)[1] for p in (Path(plan.out) / "marks").glob("ran-*")}
    assert used <= {"0", "1"}


def test_local_records_a_grading_that_crashed_or_hung(tmp_path):
    plan, plan_path = make_plan(tmp_path, ["crash-a", "hang-b", "ok-c"])
    stream = io.StringIO()
    runner = batch_local.LocalRunner(plan, plan_path, jobs=3, progress=Progress(3, stream=stream),
                                     task_command=FAKE_TASK, time_limit_s=3)
    runner.run(None)
    out = Path(plan.out)
    crash, hang, ok = (read_record(out, s) for s in ("crash-a", "hang-b", "ok-c"))
    assert crash["status"] == NOT_GRADED
    assert "exited with status 1" in crash["reason"] and "the grader fell over" in crash["reason"]
    assert hang["status"] == NOT_GRADED and "ran past 3 s" in hang["reason"]
    assert ok["status"] == GRADED
    assert (runner.done, runner.failed) == (1, 2)
    assert "crash-a: not graded" in stream.getvalue()


# ---- the whole command, local, with the stand-in: resuming and regrading ----------------------

@pytest.fixture
def fake_grading(monkeypatch):
    monkeypatch.setattr(batch_local, "TASK_COMMAND", FAKE_TASK)
    monkeypatch.setattr(batch_commands, "prepare_shared", lambda *a: "")


def test_batch_command_resumes_and_regrades(tmp_path, fake_grading, capsys):
    folder = tmp_path / "subs"
    folder.mkdir()
    for name in ("ok-alice", "ok-bob"):
        folder_submission(folder, name, f"// {name}\n")
    (folder / "readme.txt").write_text("x")
    out = tmp_path / "grades"
    argv = ["batch", "increment", str(folder), "--emu", "--out", str(out), "--jobs", "2"]

    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "2 to grade" in first and "2 graded, 0 not graded, 1 refused" in first
    assert "timing: " in first and "class.html (open it in a browser)" in first and (out / "class.html").is_file()
    stamps = {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()}
    rows = {r["student"]: r for r in csv.DictReader((out / "class.csv").open())}
    assert rows["ok-alice"]["status"] == GRADED and rows["readme.txt"]["status"] == REFUSED

    assert main(argv) == 0  # nothing new: nothing graded again
    assert "0 to grade, 2 already graded" in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()} == stamps

    folder_submission(folder, "ok-carol")
    (folder / "ok-bob/increment/increment.c").write_text("// changed\n")
    assert main(argv) == 0
    assert "2 to grade, 1 already graded" in capsys.readouterr().out
    assert (out / "results/ok-alice.json").stat().st_mtime_ns == stamps["ok-alice.json"]

    assert main([*argv, "--regrade"]) == 0
    assert "3 to grade" in capsys.readouterr().out
    assert (out / "results/ok-alice.json").stat().st_mtime_ns != stamps["ok-alice.json"]


def test_batch_command_exits_1_while_some_are_not_graded(tmp_path, fake_grading, capsys):
    folder = tmp_path / "subs"
    folder.mkdir()
    folder_submission(folder, "ok-alice")
    folder_submission(folder, "crash-bob")
    out = tmp_path / "grades"
    assert main(["batch", "increment", str(folder), "--emu", "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "1 graded, 1 not graded" in text and "crash-bob: its grading process exited" in text
    assert "1 to grade, 1 already graded" in (main(["batch", "increment", str(folder), "--emu",
                                                     "--out", str(out)]), capsys.readouterr().out)[1]


def test_batch_without_gpu_or_emu_says_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(batch_commands, "gpu_ids", lambda: [])
    (tmp_path / "subs").mkdir()
    assert main(["batch", "increment", str(tmp_path / "subs"), "--out", str(tmp_path / "g")]) == 2
    assert "--emu" in capsys.readouterr().err
    # check's --gpu is batch's default, said the same way (issue 32: a usage error left no class.csv)
    assert main(["batch", "increment", str(tmp_path / "subs"), "--gpu", "--out", str(tmp_path / "g")]) == 2
    assert "no CUDA GPU on this machine" in capsys.readouterr().err


def test_one_batch_at_a_time_per_output_folder(tmp_path):
    with batch_commands.only_batch_in(tmp_path / "g"):
        with pytest.raises(batch.BatchError, match="another `grader batch`"):
            with batch_commands.only_batch_in(tmp_path / "g"):
                pass


# ---- the Slurm side's words ---------------------------------------------------------------------

def test_sbatch_command_line(tmp_path):
    plan, plan_path = make_plan(tmp_path, ["a", "b", "c"])
    argv = batch_slurm.sbatch_argv(plan, plan_path, jobs=2, script=Path("s.sbatch"),
                                   extra=["--account=cs101"])
    assert argv[:3] == ["sbatch", "--parsable", "--array=0-2%2"]
    assert "--gres=none" in argv and "--account=cs101" in argv
    assert argv[-2:] == ["s.sbatch", str(plan_path)]
    # Each task asks for the grader's own budget of one grading (grader/budget.py), times its submissions.
    hours, rest = divmod(plan.budget_s(), 3600)
    assert f"--time={hours:02d}:{rest // 60:02d}:{rest % 60:02d}" in argv
    assert not any(a.startswith("--time") for a in batch_slurm.sbatch_argv(
        plan, plan_path, jobs=2, script=Path("s"), extra=["--time=01:00:00"])[:-3])
    plan.emu = False
    assert "--gres=none" not in batch_slurm.sbatch_argv(plan, plan_path, jobs=2, script=Path("s"), extra=[])


@pytest.mark.parametrize("log_text, state", [
    ("x\nslurmstepd-n1: error: *** JOB 4 ON n1 CANCELLED AT 2026-11-22T18:22:48 ***\n", "CANCELLED"),
    ("slurmstepd: error: *** JOB 6 ON n1 CANCELLED AT 2026-11-22T18:24:39 DUE TO TIME LIMIT ***", "TIMEOUT"),
    ("slurmstepd: error: *** JOB 6 ON n1 CANCELLED AT 2026-11-22T18:24:39 DUE TO PREEMPTION ***", "PREEMPTED"),
])
def test_a_task_state_from_its_log(tmp_path, log_text, state):
    log = tmp_path / "t.out"
    log.write_text(log_text)
    assert batch_slurm._state_from_log(log)[0] == state
    log.write_text("all fine\n")
    assert batch_slurm._state_from_log(log) is None


def test_explain_gives_the_state_and_what_to_do(tmp_path):
    log = tmp_path / "t.out"
    log.write_text("grading...\nTraceback: OSError: disk full\n")
    assert "CANCELLED" in batch_slurm.explain("7", 3, "CANCELLED", "None", log)
    timeout = batch_slurm.explain("7", 3, "TIMEOUT", "TimeLimit", log)
    assert timeout.startswith("Slurm task 7_3: TIMEOUT (TimeLimit)") and "--time" in timeout
    failed = batch_slurm.explain("7", 3, "FAILED", "exit code 1:0", log)
    assert "exit code 1:0" in failed and failed.endswith("OSError: disk full")
    assert "state unknown" in batch_slurm.explain("7", 3, "", "", tmp_path / "none.out")


def test_collect_gives_each_ungraded_submission_its_tasks_reason(tmp_path, monkeypatch):
    """sacct's final states first (a cluster with accounting), else squeue's, else the task's log."""
    students = ["ann", "ben", "cat", "dan", "eve"]
    subs = [Submission(s, f"/subs/{s}", f"{i:064x}") for i, s in enumerate(students)]
    plan = Plan("increment", True, ["public"], {"k": 1}, str(tmp_path), "run1", batch.chunks(subs, 2))
    write_record(tmp_path, {**make_record(subs[0], plan.key, GRADED, "", run="run1"), "verdict": "AC"})
    monkeypatch.setattr(batch_slurm, "accounting_states", lambda job: {0: ("TIMEOUT", "exit code 0:15")})
    monkeypatch.setattr(batch_slurm, "queue_states", lambda job: {1: ("FAILED", "NonZeroExitCode")})
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "slurm-42_1.out").write_text("Traceback...\nOSError: No space left on device\n")
    (tmp_path / "logs" / "slurm-42_2.out").write_text(
        "slurmstepd: error: *** JOB 44 ON n3 CANCELLED AT 2026-11-22T18:24:39 DUE TO PREEMPTION ***\n")
    runner = batch_slurm.SlurmRunner(plan, progress=quiet())
    assert runner.collect("42") == (1, 4)
    reason = {s: read_record(tmp_path, s)["reason"] for s in students}
    assert read_record(tmp_path, "ann")["status"] == GRADED  # graded before its task timed out
    assert reason["ben"].startswith("Slurm task 42_0: TIMEOUT") and "--time" in reason["ben"]
    assert reason["cat"].startswith("Slurm task 42_1: FAILED") and reason["cat"].endswith("No space left on device")
    assert reason["dan"] == reason["cat"]  # one task, one reason
    assert reason["eve"].startswith("Slurm task 42_2: PREEMPTED")
