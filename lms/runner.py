"""Grades one submission inside an LMS and always writes a valid results.json.

    python3 -m lms.runner --format gradescope|prairielearn --bundle DIR --submission DIR --results FILE

DIR (--bundle) is what a bundle unpacks to: kit/ (the student edition of the kit, with lms/),
lms-lab.json (the lab's cases and points) and, when the instructor gave one, secret. The run
scripts of each LMS (gradescope.py, prairielearn.py) call this with that LMS's paths.

Order of work: stage the submission (the lab's .c files, found wherever the student put them,
or one tarball from `make submit`), grade it with the kit's own command line under the CPU
emulator, read the grader's JSON report, convert it (results.py), write results.json by a
rename. Whatever fails (the submission, the grader, this file) ends in a results.json that says
what happened: score 0 and a reason, never a missing file. The grader's own output goes to
stdout, which both LMSs keep for the course staff only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from grader import exit_status
from grader.shared_files import write_atomically
from grader.verdict import IE
from lms import results as convert, seal
from lms.kit import CONFIG_NAME, LabInfo

FORMATS = ("gradescope", "prairielearn")
TARBALL_SUFFIXES = (".tar.gz", ".tgz")
LOG_CHARS = 200_000


class StudentError(Exception):
    """The submission cannot be graded as handed in; the message tells the student what to fix."""


class GraderFailure(Exception):
    """The grading machinery failed; the message says where (not the student's fault)."""


def _regular_files(top: Path):
    """Every regular file under top, never following a link."""
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__MACOSX")
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                yield path


def stage_submission(submission: Path, info: LabInfo, stage: Path) -> Path:
    """The path to hand the grader: a folder <stage>/submission/ holding <lab>/ with the lab's
    .c files (the layout of `make submit`), or the one tarball the student uploaded. Raises StudentError when the files are not there."""
    if not submission.is_dir():
        raise GraderFailure(f"the submission folder {submission} does not exist (the LMS put nothing there)")
    files = list(_regular_files(submission))
    wanted = [f"{p}.c" for p in info.programs]
    found: dict[str, Path] = {}
    for path in sorted(files, key=lambda p: (len(p.relative_to(submission).parts), str(p))):
        if path.name in wanted and path.name not in found:
            found[path.name] = path
    tarballs = [p for p in files if p.name.endswith(TARBALL_SUFFIXES)]
    if not found and len(tarballs) == 1:
        return tarballs[0]
    missing = [name for name in wanted if name not in found]
    if missing:
        what = ", ".join(wanted)
        extra = (f"; found {len(tarballs)} tarballs ({', '.join(p.name for p in tarballs[:3])}): upload only one"
                 if len(tarballs) > 1 else "")
        raise StudentError(f"your submission has no {', '.join(missing)}{extra}. Lab {info.lab} needs {what} "
                           f"(your files from starter/{info.lab}/), or the {info.lab}-submission.tar.gz "
                           f"that `make submit LAB={info.lab}` makes.")
    folder = stage / "submission" / info.lab
    folder.mkdir(parents=True)
    for name, path in found.items():
        shutil.copyfile(path, folder / name)
    return folder.parent


def _last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("grader: error:", "error:"))]
    return (errors or lines or [""])[-1]


def run_grader(kit: Path, target: Path, info: LabInfo, report_path: Path, secret: Path | None,
               timeout_s: float) -> dict:
    """The kit's grader on the staged submission; its JSON report as a dict."""
    argv = [sys.executable, "-m", "grader", "check", info.lab, "--submission", str(target), "--emu",
            "--json", str(report_path), "--quiet"]
    if secret is not None:
        argv += ["--secret-file", str(secret)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABKIT_SECRET")}
    print("lms: $", " ".join(argv), flush=True)
    proc = subprocess.Popen(argv, cwd=kit, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        print(out.decode(errors="replace")[-LOG_CHARS:], flush=True)
        raise StudentError(f"grading stopped after {timeout_s:.0f} s, the most this lab's cases and build may "
                           f"take together; every case has its own time limit, so the build or the program "
                           f"ran far too long") from None
    text = out.decode(errors="replace")
    print(text[-LOG_CHARS:], flush=True)
    try:
        report = json.loads(report_path.read_text())
    except (OSError, ValueError):
        report = None
    line = _last_error_line(text).removeprefix("grader: error:").strip()
    if proc.returncode == exit_status.REFUSED:  # whose failure it is, the status says; the line is only shown
        raise StudentError("the grader refused the submission: " + line)
    if isinstance(report, dict) and isinstance(report.get("cases"), list):
        not_graded = [c for c in report["cases"] if isinstance(c, dict) and c.get("verdict") == IE]
        if proc.returncode == exit_status.NOT_ALL_GRADED or not_graded:
            reasons = "; ".join(f"{c.get('case')}: {c.get('reason')}" for c in not_graded[:3])
            raise GraderFailure(f"{len(not_graded)} case(s) could not be graded ({reasons})")
        return report
    raise GraderFailure(f"the kit's grader stopped (exit status {proc.returncode}) without a report: {line}")


def write_json(path: Path, data: dict) -> None:
    write_atomically(path, json.dumps(data, indent=2) + "\n")


def grade(fmt: str, bundle: Path, submission: Path, results_path: Path) -> dict:
    """The results.json for this submission; never raises."""
    started = time.monotonic()
    info = None
    try:
        info = LabInfo.from_json((bundle / CONFIG_NAME).read_text())
    except Exception as e:  # noqa: BLE001: any failure here is the bundle's, and must still give results
        reason = (f"The autograder is broken, not your code: its {CONFIG_NAME} could not be read ({e}). "
                  f"Tell your instructor; they remake the bundle with make gradescope/prairielearn.")
        return convert.gradescope_failure(None, reason) if fmt == "gradescope" else convert.prairielearn_failure(reason)
    secret = bundle / "secret"
    secret = secret if secret.is_file() else None
    secrets = tuple(str(p) for p in (secret, secret and secret.resolve()) if p)
    try:
        with tempfile.TemporaryDirectory(prefix="labkit-lms-") as work:
            work = Path(work)
            target = stage_submission(submission, info, work)
            report = run_grader(bundle / "kit", target, info, work / "report.json", secret,
                                max(30.0, info.budget_s - 20))
        if fmt == "gradescope":
            return convert.to_gradescope(report, info, execution_s=time.monotonic() - started, secrets=secrets)
        return convert.to_prairielearn(report, info, secrets=secrets)
    except StudentError as e:
        reason = convert.scrub(str(e), secrets)
        if fmt == "gradescope":
            return convert.gradescope_failure(info, f"Not graded: {reason}")
        return convert.prairielearn_failure(f"Not graded: {reason}")
    except Exception as e:  # noqa: BLE001: GraderFailure and anything unforeseen
        traceback.print_exc(file=sys.stdout)
        where = str(e) if isinstance(e, GraderFailure) else f"{type(e).__name__}: {e}"
        reason = (f"The autograder failed, not your code ({convert.scrub(where, secrets)}). Your instructor "
                  f"has the log; submit again later or ask them.")
        return convert.gradescope_failure(info, reason) if fmt == "gradescope" else convert.prairielearn_failure(reason)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m lms.runner", description=__doc__.splitlines()[0])
    p.add_argument("--format", choices=FORMATS, required=True)
    p.add_argument("--bundle", type=Path, required=True, help="the unpacked bundle: kit/, lms-lab.json")
    p.add_argument("--submission", type=Path, required=True, help="the student's files")
    p.add_argument("--results", type=Path, required=True, help="the results.json to write")
    p.add_argument("--seal", type=Path, help="where to seal it (lms/seal.py): a folder no graded program can write")
    args = p.parse_args(argv)
    data = grade(args.format, args.bundle.resolve(), args.submission, args.results)
    args.results.unlink(missing_ok=True)  # whatever stands there (a program's link) is replaced, never followed
    write_json(args.results, data)
    if args.seal is not None:
        seal.write(args.results, args.seal)
    print(f"lms: wrote {args.results}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
