"""Grading a class: every submission in a folder, on this machine or as a Slurm array job.

    python3 -m grader batch <lab> <folder> [--scheduler local|slurm] [--jobs N] [--out DIR]

The folder holds one entry per student, named by the student's id: a folder or a .tar.gz made
by `make submit`. Under --out (default <lab>-grades/) the batch keeps:
    results/<student>.json   one record per submission, written atomically as soon as it is
                             graded, so a crash of the grader itself loses nothing already graded
    plans/<run>.json         what one run set out to grade, in tasks (what a Slurm task reads)
    logs/                    each submission's (local) or each task's (Slurm) grading log
    class.csv, class.json    the class summary, rebuilt from the records at the end of each run
    class.html               the class at a glance, one self-contained page (class_report.py)
A rerun skips every submission whose record says it was graded with the same grading key (kit
version, the lab's trusted files, emulation, case groups) and the same submission SHA-256;
--regrade grades them all again. A submission that could not be graded (its job failed, was
cancelled or timed out) has a "not graded" record with the reason, and is graded by the next run.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
import socket
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader import KIT_VERSION, hidden
from grader import report as reports
from grader.build import build_lab
from grader.cases import prepare, sha256_of
from grader.budget import grading_budget
from grader.gpu import gpu_count, has_gpu
from grader.grade import Grader
from grader.build import build_dir_for
from grader.intake import Source
from grader.hidden import Secret
from grader.labs import ConfigError, load_lab
from grader.program_files import remove_tree
from grader.paths import BUILD_DIR, LABS_DIR, SOLUTIONS_DIR, TESTCASES_DIR
from grader.intake import MAX_TARBALL_BYTES, SubmissionError
from grader.intake import folder_sha256
from grader.intake import intake as submission_intake
from grader.sandbox import sandbox_for
from grader.shared_files import exclusive_lock, write_atomically
from grader.text import csv_cell, one_line
from grader.verdict import AC, CE, IE, RE, SLOW, TLE, WA
from grader.work import WORK

GRADED, NOT_GRADED, REFUSED = "graded", "not graded", "refused"
# A submission's overall verdict is its worst case's, in this order.
SEVERITY = (IE, CE, RE, TLE, WA, WORK, SLOW, AC)
TARBALL_SUFFIXES = (".tar.gz", ".tgz")
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]*")


class BatchError(Exception):
    """A batch that cannot start; the message says what to do."""


# ---- the submissions folder -----------------------------------------------------------------

@dataclass(frozen=True)
class Submission:
    student: str
    path: str  # absolute: a folder or a tarball
    sha256: str
    problem: str = ""  # why it cannot be graded at all (not a submission, a bad name)


def student_id(entry: Path) -> str:
    name = entry.name
    for suffix in TARBALL_SUFFIXES:
        if entry.is_file() and name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def submission_sha256(path: Path, lab) -> str:
    """What intake will read, hashed without reading anything else: a tarball's bytes (its size
    checked first), or a folder's allowed files (intake.allowed_names, looked up, never walked:
    a folder of a thousand levels or a sparse file of gigabytes beside them costs nothing)."""
    if path.is_file():
        size = path.stat().st_size
        if size > MAX_TARBALL_BYTES:
            raise SubmissionError(f"refused: {path.name} is {size} bytes; the limit is {MAX_TARBALL_BYTES}")
        return sha256_of(path)
    return folder_sha256(path, lab)


def discover(folder: Path, lab, *, exclude: Path | None = None) -> list[Submission]:
    """Every entry of the folder, sorted by student id; hidden entries are skipped. An entry
    that cannot be a submission is kept with the problem, so it is never silently missing."""
    if not folder.is_dir():
        raise BatchError(f"{folder} is not a folder of submissions")
    found: dict[str, list[Path]] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or (exclude and entry.resolve() == exclude.resolve()):
            continue
        found.setdefault(student_id(entry), []).append(entry)
    submissions = []
    for student, entries in sorted(found.items()):
        entry = entries[0].resolve()
        problem = ""
        if len(entries) > 1:
            problem = (f"{len(entries)} entries for one student ({', '.join(e.name for e in entries)}): "
                       f"keep one")
        elif not (entry.is_dir() or (entry.is_file() and entries[0].name.endswith(TARBALL_SUFFIXES))):
            problem = f"{entries[0].name} is neither a folder nor a .tar.gz made by `make submit`"
        elif not STUDENT_ID.fullmatch(student):
            problem = (f"the name {student!r} has characters the build cannot take: rename it to "
                       f"letters, digits and . _ @ + - only")
        sha = ""
        if not problem:
            try:
                sha = submission_sha256(entry, lab)
            except (OSError, SubmissionError) as e:
                problem = str(e) if isinstance(e, SubmissionError) else f"cannot read {entries[0].name}: {e.strerror}"
        submissions.append(Submission(student, str(entry), sha, one_line(problem)))
    return submissions


# ---- what a grade depends on ----------------------------------------------------------------

def _files_sha256(paths: list[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def grading_key(lab_id: str, emu: bool, groups: tuple[str, ...], secret: Secret | None = None,
                checks: bool = True) -> dict:
    """Everything besides the submission that a grade depends on: a record made with another
    key is stale. The lab's trusted files are its harness, labs/common and its testcases; the
    hidden cases are named by the secret's fingerprint (which says nothing about the secret)."""
    root = LABS_DIR.parent
    files = [p for p in (LABS_DIR / lab_id).iterdir() if p.is_file()]
    files += [p for p in (LABS_DIR / "common").iterdir() if p.is_file()]
    files += [p for p in (TESTCASES_DIR / lab_id).rglob("*")
              if p.is_file() and "__pycache__" not in p.parts]
    return {"kit_version": KIT_VERSION, "lab": lab_id, "lab_files_sha256": _files_sha256(files, root),
            "emu": emu, "cases": sorted(groups), "hidden_cases": secret.fingerprint if secret else None,
            "checks": checks}


# ---- the plan: what one run grades, in tasks -----------------------------------------------

@dataclass
class Plan:
    lab: str
    emu: bool
    groups: list[str]
    key: dict
    out: str  # absolute
    run_id: str  # names this run's plan file; each record says which run made it
    tasks: list[list[Submission]] = field(default_factory=list)
    keep_builds: bool = False
    sandbox: str | None = None  # the Grader's: auto | require | off (None: LABKIT_SANDBOX)
    secret_file: str | None = None  # the instructor's secret for hidden cases (else from the environment)
    checks: bool = True  # the Grader's: sanitizers, race detector, random-order pass

    def secret(self) -> Secret | None:
        return hidden.load_secret(Path(self.secret_file) if self.secret_file else None)

    def submissions(self) -> list[Submission]:
        return [s for task in self.tasks for s in task]

    def budget_s(self) -> int:
        """The most one submission's grading may take (grader/budget.py, from its plans): past
        it the local batch kills the grading; a Slurm task asks for it per submission it grades."""
        lab = load_lab(self.lab)
        cases = [c for c in lab.cases if c.group in self.groups]
        if self.secret() is not None:
            cases += hidden.hidden_cases(lab, None)
        return grading_budget(lab, cases, emu=self.emu, gpus=0 if self.emu else max(1, gpu_count()),
                              checks=self.checks).total_s

    def save(self, path: Path) -> None:
        write_atomically(path, json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> Plan:
        try:
            raw = json.loads(Path(path).read_text())
            raw["tasks"] = [[Submission(**s) for s in task] for task in raw["tasks"]]
            return cls(**raw)
        except (OSError, ValueError, TypeError, KeyError) as e:
            raise BatchError(f"cannot read the batch plan {path}: {e}") from None


def chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), max(1, size))]


# ---- records: one file per submission -------------------------------------------------------

def record_path(out: Path, student: str) -> Path:
    return Path(out) / "results" / f"{student}.json"


def read_record(out: Path, student: str) -> dict | None:
    try:
        record = json.loads(record_path(out, student).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def has_outcome(record: dict | None, sub: Submission, plan: Plan) -> bool:
    """Whether this run (or an earlier one, finally) left a record for the submission."""
    return is_final(record, sub, plan.key) or (
        record is not None and record.get("run") == plan.run_id
        and record.get("submission_sha256") == sub.sha256)


def is_final(record: dict | None, sub: Submission, key: dict) -> bool:
    """Graded (or refused at intake) from these very bytes with this very key: nothing to redo."""
    return (record is not None and record.get("status") in (GRADED, REFUSED)
            and record.get("submission_sha256") == sub.sha256 and record.get("key") == key)


def overall_verdict(results: list[dict]) -> tuple[str, str]:
    """The submission's verdict (its worst case's) and that case's reason."""
    if not results:
        return AC, "no testcases"
    worst = min(results, key=lambda r: SEVERITY.index(r["verdict"]) if r["verdict"] in SEVERITY else 0)
    if worst["verdict"] == AC:
        return AC, f"all {len(results)} cases correct"
    if worst["verdict"] == CE:
        return CE, worst["reason"]  # every case has the build's reason
    return worst["verdict"], f"{worst['case']}: {worst['reason']}"


def make_record(sub: Submission, key: dict, status: str, reason: str, *, where: str = "", run: str = "",
                report=None) -> dict:
    record = {"student": sub.student, "status": status, "verdict": "", "score": 0.0,
              "max_score": None, "reason": reason, "submission": sub.path,
              "submission_sha256": sub.sha256, "key": key, "where": where, "run": run,
              "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if report is not None:
        body = reports.to_json(report)
        record["verdict"], record["reason"] = overall_verdict(body["cases"])
        record.update(score=body["score"], max_score=body["max_score"], report=body)
    return record


def write_record(out: Path, record: dict) -> None:
    write_atomically(record_path(out, record["student"]), json.dumps(record, indent=1) + "\n")


# ---- grading one task's submissions (what a local worker or a Slurm task runs) ---------------

def prepare_shared(lab, emu: bool, groups: tuple[str, ...], secret: Secret | None = None) -> str:
    """Builds what every submission's grading shares (the reference solution, the emulator's
    library, the testcases, hidden ones too) once, under a lock, so that tasks running side by
    side never write the same file at once. Returns why grading cannot go on here, or ''."""
    if not emu and not has_gpu():
        return (f"no CUDA GPU on {socket.gethostname()}: the task got none (does the batch script ask "
                f"for one: --gres=gpu:1?)")
    with exclusive_lock(BUILD_DIR / "locks" / f"batch-{lab.id}.lock"):
        try:
            for case in (c for c in lab.cases if c.group in groups):
                prepare(lab, case)
            for case in hidden.hidden_cases(lab, secret) if secret else []:
                hidden.prepare_hidden(lab, case, secret)
        except ConfigError as e:
            return f"the testcases could not be made: {e}"
        if (SOLUTIONS_DIR / lab.id).is_dir():
            solution = Source("solution", SOLUTIONS_DIR)
            build = build_lab(lab, src_root=solution.root, build_dir=build_dir_for(solution, emu, False),
                              emu=emu, submission=solution.submission)
            if not build.ok:
                return (f"the reference solution does not build on {socket.gethostname()} "
                        f"({build.reason}): the toolchain there is broken (a module not loaded?)")
    return ""


def unpacked_dir(plan: Plan, sub: Submission) -> Path:
    return BUILD_DIR / "batch" / plan.lab / f"{sub.student}-{sub.sha256[:12]}"


def intake_once(plan: Plan, lab, sub: Submission) -> Path:
    """The folder to build from: the submission's own files for the lab, checked and copied
    (submission.intake). Done once for the same bytes: a second call (the grading stage after
    the build stage) reuses the copy, so the build made from it stays up to date."""
    dest = unpacked_dir(plan, sub) / "src"
    marker = dest.parent / "intake.sha256"
    if dest.is_dir() and marker.exists() and marker.read_text().strip() == sub.sha256:
        return dest
    shutil.rmtree(dest.parent, ignore_errors=True)
    submission_intake(Path(sub.path), lab, dest)
    marker.write_text(sub.sha256 + "\n")
    return dest


def submission_source(sub: Submission, root: Path) -> Source:
    # The hash in the name keeps two submissions of one student id (two batches) from ever
    # sharing a build folder, where make could keep a stale object.
    return Source(f"sub-{sub.student}-{sub.sha256[:12]}", root, submission=True)


def clean_up(plan: Plan, sub: Submission) -> None:
    if plan.keep_builds:
        return
    source = submission_source(sub, Path(sub.path))
    for asan in (False, True):  # under the emulator the checked build has ASan on
        remove_tree(build_dir_for(source, plan.emu, asan))  # its runs' folders went with its grading
    remove_tree(build_dir_for(source, True, False))  # a GPU node's emulated multi-device build
    remove_tree(unpacked_dir(plan, sub))


def build_only(plan: Plan, sub: Submission) -> None:
    """The local scheduler's first stage: intake and build, on the CPUs, ahead of the GPU."""
    lab = load_lab(plan.lab)
    try:
        root = intake_once(plan, lab, sub)
    except SubmissionError:
        return  # the grading stage records the refusal
    build_lab(lab, src_root=root, build_dir=build_dir_for(submission_source(sub, root), plan.emu, False),
              emu=plan.emu, submission=True, sandbox=sandbox_for(plan.sandbox, submission=True))


def grade_one(plan: Plan, sub: Submission, *, where: str, log=print) -> dict:
    """Grades one submission and writes its record; returns the record."""
    key = plan.key
    try:
        lab = load_lab(plan.lab)
        root = intake_once(plan, lab, sub)
        report = Grader(lab, submission_source(sub, root), emu=plan.emu, groups=tuple(plan.groups), log=log,
                        sandbox=plan.sandbox, secret=plan.secret(), checks=plan.checks).grade()
        record = make_record(sub, key, GRADED, "", where=where, run=plan.run_id, report=report)
        if record["verdict"] == IE:  # the grader's failure, not the student's: graded again next run
            record["status"] = NOT_GRADED
    except SubmissionError as e:
        record = make_record(sub, key, REFUSED, str(e), where=where, run=plan.run_id)
    except Exception as e:  # the grader's own failure must not look like the student's
        traceback.print_exc()
        record = make_record(sub, key, NOT_GRADED, f"the grader failed: {type(e).__name__}: {e}",
                             where=where, run=plan.run_id)
    write_record(Path(plan.out), record)
    clean_up(plan, sub)
    return record


def run_task(plan: Plan, submissions: list[Submission], *, where: str) -> int:
    """Grades a task's submissions in turn, skipping those already final (a requeued task)."""
    lab = load_lab(plan.lab)
    todo = [s for s in submissions if not is_final(read_record(Path(plan.out), s.student), s, plan.key)]
    if not todo:
        print("every submission of this task is already graded")
        return 0
    try:
        problem = prepare_shared(lab, plan.emu, tuple(plan.groups), plan.secret())
    except ConfigError as e:
        problem = str(e)
    for sub in todo:
        if problem:
            record = make_record(sub, plan.key, NOT_GRADED, problem, where=where, run=plan.run_id)
            write_record(Path(plan.out), record)
        else:
            print(f"== {sub.student} ({sub.path})", flush=True)
            record = grade_one(plan, sub, where=where)
        print(f"== {sub.student}: {record['status']} {record['verdict']} {record['reason']}", flush=True)
    return 0


# ---- the class summary ----------------------------------------------------------------------

def summary_rows(submissions: list[Submission], out: Path, key: dict) -> list[dict]:
    """One row per submission of the folder, whatever happened to it."""
    rows = []
    for sub in submissions:
        record = read_record(out, sub.student)
        if sub.problem:
            record = make_record(sub, key, REFUSED, sub.problem, where="intake")
        elif record is None or record.get("submission_sha256") != sub.sha256:
            record = make_record(sub, key, NOT_GRADED, "no result yet: the batch was interrupted "
                                 "or its job is still running; run the batch again", where="")
        elif record.get("key") != key and record.get("status") != NOT_GRADED:
            record = {**record, "status": NOT_GRADED,
                      "reason": "graded with another kit version or other testcases: run the batch again"}
        rows.append(record)
    return rows


def write_summary(rows: list[dict], out: Path, lab_id: str, key: dict) -> tuple[Path, Path]:
    case_names: list[str] = []
    for row in rows:
        for case in (row.get("report") or {}).get("cases", []):
            if case["case"] not in case_names:
                case_names.append(case["case"])
    header = ["student", "status", "verdict", "score", "max_score", *map(csv_cell, case_names), "reason",
              "submission_sha256", "finished_at"]
    lines = []
    for row in rows:
        verdicts = {c["case"]: c["verdict"] for c in (row.get("report") or {}).get("cases", [])}
        max_score = row.get("max_score")
        lines.append([csv_cell(row["student"]), row["status"], row.get("verdict", ""), f"{row.get('score', 0):g}",
                      "" if max_score is None else f"{max_score:g}",
                      *[verdicts.get(name, "") for name in case_names],
                      csv_cell(row.get("reason", "")), row.get("submission_sha256", ""), row.get("finished_at", "")])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(lines)
    csv_path, json_path = out / "class.csv", out / "class.json"
    write_atomically(csv_path, buffer.getvalue())
    counts = {status: sum(r["status"] == status for r in rows) for status in (GRADED, NOT_GRADED, REFUSED)}
    summary = {"lab": lab_id, "key": key, "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "counts": {**counts, "total": len(rows)},
               "students": [{k: v for k, v in r.items() if k != "report"} |
                            {"cases": (r.get("report") or {}).get("cases", [])} for r in rows]}
    from grader.batch import class_report  # it reads this module's names
    at_a_glance = class_report.summarize(rows)
    summary["summary"] = at_a_glance
    write_atomically(json_path, json.dumps(summary, indent=1) + "\n")
    write_atomically(out / "class.html", class_report.to_html(at_a_glance, lab_id, summary["generated_at"],
                                                                     rows))
    return csv_path, json_path


# ---- progress ---------------------------------------------------------------------------------

class Progress:
    """A live count (done, failed, running, queued). On a terminal one line is rewritten in
    place; in a log a line is printed when the counts change, at most once every `every_s`, so
    a batch of hundreds does not flood it."""

    def __init__(self, total: int, *, stream=None, every_s: float = 30.0):
        self.total, self.stream, self.every_s = total, stream or sys.stderr, every_s
        self.tty = self.stream.isatty()
        self.last_line, self.last_time = "", 0.0

    def _line(self, done: int, failed: int, running: int, queued: int) -> str:
        return f"[batch] {done + failed}/{self.total}: {done} done, {failed} failed, {running} running, {queued} queued"

    def update(self, done: int, failed: int, running: int, queued: int, *, force: bool = False) -> None:
        line = self._line(done, failed, running, queued)
        now = time.monotonic()
        if self.tty:
            if line != self.last_line:
                self.stream.write("\r\033[K" + line)
                self.stream.flush()
        elif line != self.last_line and (force or now - self.last_time >= self.every_s):
            print(line, file=self.stream, flush=True)
            self.last_time = now
        else:
            return
        self.last_line = line

    def note(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text + "\n" + self.last_line)
            self.stream.flush()
        else:
            print(text, file=self.stream, flush=True)

    def close(self, done: int, failed: int) -> None:
        line = self._line(done, failed, 0, 0)
        if self.tty:
            self.stream.write("\r\033[K" + line + "\n")
        elif line != self.last_line:
            print(line, file=self.stream)
        self.stream.flush()
