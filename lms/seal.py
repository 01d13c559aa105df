"""The seal on an LMS's results.json: it is the grader's own, written after the grading ended.

A results.json that is merely present proves nothing: a submission may have written it, or
killed the grader after the runner wrote it, or changed it after. So each LMS script (Gradescope's
run_autograder, PrairieLearn's run) makes a fresh folder before grading that no graded program can
write (mktemp -d: the grader's own, 0700, and out of every sandbox's reach), and passes a path in
it to lms.runner as --seal. The runner writes results.json, then the seal: the SHA-256 of the
bytes it wrote. After the runner has ended, the script runs

    python3 -m lms.seal --format gradescope|prairielearn --results FILE --seal FILE

which keeps results.json only when the seal is there and matches it; otherwise it writes a
results.json of its own that gives no points and says why (the grader died, or the file changed
after it was written), and the staff's log says the same.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

FORMATS = ("gradescope", "prairielearn")
SEAL_PREFIX = "labkit-results-sha256 "


def write(results: Path, seal: Path) -> None:
    """The seal of the results.json the runner has just written (by a rename: this reads it whole)."""
    digest = hashlib.sha256(results.read_bytes()).hexdigest()
    seal.write_text(SEAL_PREFIX + digest + "\n")


def problem(results: Path, seal: Path) -> str:
    """'' when results.json is the runner's own; else what is wrong with it."""
    try:
        sealed = seal.read_text().strip()
    except OSError:
        return "the grader stopped before it wrote its results (it was killed, or it crashed)"
    try:
        digest = hashlib.sha256(results.read_bytes()).hexdigest()
    except OSError:
        return "the results file the grader wrote is gone"
    if sealed != SEAL_PREFIX + digest:
        return "the results file was changed after the grader wrote it"
    return ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m lms.seal", description=__doc__.splitlines()[0])
    p.add_argument("--format", choices=FORMATS, required=True)
    p.add_argument("--results", type=Path, required=True)
    p.add_argument("--seal", type=Path, required=True)
    args = p.parse_args(argv)
    wrong = problem(args.results, args.seal)
    if not wrong:
        return 0
    from lms import results as convert
    from lms.runner import write_json
    reason = (f"The autograder failed, not your code: {wrong}, so this grade is not the grader's and counts "
              f"for nothing. Your instructor has the log; submit again later or ask them.")
    failure = convert.gradescope_failure(None, reason) if args.format == "gradescope" \
        else convert.prairielearn_failure(reason)
    args.results.unlink(missing_ok=True)  # a link or a file of someone else's: replaced, never written through
    write_json(args.results, failure)
    print(f"lms.seal: {wrong}; wrote a results.json that gives no points", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
