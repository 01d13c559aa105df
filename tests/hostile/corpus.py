"""The hostile corpus: each folder here is a submission of lab `increment` that cheats, attacks
or breaks in one way. grade_corpus() grades them all in one batch, one after the other in
this process, then the reference solution, and checks that each got the verdict and reason it
should, that none left anything behind, and that the grader's own memory stayed bounded.

    python3 tests/hostile/corpus.py [--gpu] [--sandbox auto|off]     (no pytest needed)

tests/hostile/test_hostile.py runs it under the CPU emulator with the sandbox on and off; the
device run (grader/scripts/safety_gpu_verify.sh) runs it on a GPU, where kernel_loop spins on the
device. The mechanism knows nothing of the lab: only this table does.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from grader.grade import Grader  # noqa: E402
from grader.build import Source  # noqa: E402
from grader.labs import load_lab  # noqa: E402
from grader.paths import BUILD_DIR, SOLUTIONS_DIR  # noqa: E402
from grader.sandbox import MODES  # noqa: E402
from grader.text import one_line  # noqa: E402

LAB = "increment"
CASE = "small"  # every submission runs this one public case
TIME_LIMIT_S = 3.0  # instead of the case's own, so the loops end quickly
PORT = 47391  # network/increment.c connects here
SECRET = "hostile-corpus-secret-0123456789"
DAEMON_MARK = "labkit-hostile-daemon"
ESCAPED = [Path("/tmp/labkit-hostile-escaped.txt"), BUILD_DIR / "hostile-escaped.txt"]


@dataclass(frozen=True)
class Expect:
    verdict: str
    reason: str  # a part of the reason ("a|b": either)
    verdict_off: str | None = None  # with the sandbox off, when it differs (a known hole; "*": any)
    reason_off: str | None = None
    flagged: str = ""  # a part of the timing note when the timing must be flagged
    gpu_only: bool = False  # meaningless under the emulator
    kills: bool = False  # signals every process it can: graded only as init of a PID namespace of its own


EXPECTED = {
    # with the sandbox off, the stolen answer is still caught: not computed by the kernel ([work])
    "steal_expected": Expect("WA", "entry 0:", "WORK", "changed on the host after the copy back"),
    "steal_solution": Expect("AC", "correct", "RE", "stole"),
    "write_outside": Expect("AC", "correct"),
    "network": Expect("AC", "correct"),
    "fork_bomb": Expect("CE", "calls fork"),  # refused by the symbol check (thread_bomb runs)
    "thread_bomb": Expect("RE", "processes and threads at once"),
    # the first run is profiled (lab.toml [work]); past the limit, a plain run confirms the TLE
    "host_loop": Expect("TLE", "ran past the time limit of"),
    "kernel_loop": Expect("TLE", "ran past the time limit of"),
    "slow_when_profiled": Expect("AC", "correct"),
    "stdout_flood": Expect("AC", "MB to stdout; the grader kept the first 64 KiB"),
    "huge_file": Expect("RE", "SIGXFSZ"),
    "segfault": Expect("RE", "SIGSEGV"),
    "abort": Expect("RE", "SIGABRT"),
    "exit_silently": Expect("WA", "wrote no output file"),
    "forged_stdout": Expect("WA", "entry 0:"),
    "forged_timing": Expect("AC", "correct", flagged="longer than the process lived"),
    # the kit's own mark (a define and a #line) forged on a right kernel: it can only lose the points
    "forged_origin": Expect("WORK", "built as the kit's harness"),
    "other_stream": Expect("AC", "correct", flagged="work left running on another stream?", gpu_only=True),
    "daemon": Expect("CE", "calls execv"),  # grader/tests/test_sandbox.py runs one
    "read_secret": Expect("RE", "secret: (none)"),
    # build-time theft: the build sees only the submission, the harness and the toolchain
    # With the sandbox off these are holes whose verdict depends on what the build folder holds
    # (under EMU the included solution is not rewritten: CE; on a GPU: AC): SECURITY.md says so.
    # no such file (bubblewrap), or a header nvcc-emu cannot read (the file modes of the user kind)
    "include_solution": Expect("CE", "fatal error|cannot read a header it includes", "*", ""),
    "include_build": Expect("CE", "fatal error|cannot read a header it includes", "*", ""),
    "incbin_expected": Expect("CE", "small.expected", "*", ""),
    "self_include": Expect("CE", "nested depth"),
    "macro_bomb": Expect("CE", "memory"),
    "calls_system": Expect("CE", "calls system"),
    "calls_dlsym": Expect("CE", "calls dlsym"),
    "sets_environment": Expect("CE", "(the environment the grader set)"),
    # output forgery: the grader opens only a regular file of the program's own
    "output_symlink": Expect("WA", "is a link"),
    "output_devzero": Expect("WA", "is a link"),
    "output_folder": Expect("WA", "is a folder"),
    "output_fifo": Expect("WA", "is a pipe"),
    "output_hardlink": Expect("WA", "wrote no output file", "WA", "hard link"),
    "chmod_workdir": Expect("RE", "into its work folder"),
    # report injection: every reason one printable line (checked for every entry below)
    "report_injection": Expect("RE", "exited with status 7"),
    "crafted_ce": Expect("CE", "error"),
    # issue 24's two: no kernel work, the answer found on disk, or the grade forged and the grader killed
    "walk_expected": Expect("WA", "entry 0:", "*", ""),
    "forge_results": Expect("WA", "entry 0:", "*", "", kills=True),
}


def in_own_pid_namespace() -> bool:
    """Whether this process is the first of a PID namespace (unshare --pid --fork --mount-proc),
    where a submission's kill(-1) reaches nothing outside the test."""
    return os.getpid() == 1


class Listener:
    """A TCP listener on the loopback that records what reaches it (network/increment.c)."""

    def __init__(self):
        self.heard = b""
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind(("127.0.0.1", PORT))
        except OSError as error:
            raise SystemExit(f"corpus.py: cannot listen on 127.0.0.1:{PORT} ({error.strerror}): another run of the "
                             "hostile corpus holds it on this host; run one at a time (network/increment.c "
                             "connects to that port)") from None
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(2)
            try:
                self.heard += conn.recv(64)
            except OSError:
                pass
            conn.close()

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def _daemons() -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and DAEMON_MARK.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except OSError:
            continue
    return found


def _reports_parse(report) -> bool:
    """Every format of the report reads back: the table has its rows, JSON and JUnit parse."""
    import json
    import xml.etree.ElementTree as ET
    from grader import report as reports
    table = reports.table(report).splitlines()
    rows = [line for line in table if line.split()[:1] == [report.results[0].case]]
    json.loads(json.dumps(reports.to_json(report)))
    ET.fromstring(reports.to_junit(report))
    return len(rows) == 1 and not any(c < " " and c != "\n" or c == "\x7f" for c in "\n".join(table))


def grade_one(name: str, source: Source, *, emu: bool, sandbox: str, case_name: str = CASE):
    lab = load_lab(LAB)
    # With the sandbox on, as a TA grades (the checks on); off, the checks are left out: that
    # run is about the limits, and CI's time is better spent elsewhere.
    grader = Grader(lab, source, emu=emu, sandbox=sandbox, log=lambda *_: None, checks=sandbox != "off")
    case = next(c for c in lab.cases if c.name == case_name)
    grader.cases = [dataclasses.replace(case, time_limit_s=TIME_LIMIT_S)]
    return grader.grade()


def grade_corpus(*, emu: bool, sandbox: str, names: list[str] | None = None, log=print) -> list[str]:
    """Grades the corpus in one batch; returns what went wrong (empty: all as expected)."""
    names = names or [n for n, e in EXPECTED.items() if not (emu and e.gpu_only) and not e.kills]
    unsafe = [n for n in names if EXPECTED[n].kills and not in_own_pid_namespace()]
    if unsafe:
        raise RuntimeError(f"{', '.join(unsafe)} signal every process they can: grade them only in a PID namespace "
                           f"of their own (unshare --pid --fork --mount-proc python3 tests/hostile/corpus.py ...)")
    problems = []
    for path in ESCAPED:
        path.unlink(missing_ok=True)
    os.environ["LABKIT_SECRET"] = SECRET  # in the grader's environment, never in the program's
    listener = Listener()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # The reference first, so its objects can be shared with every submission's build.
    grade_one("solution", Source("solution", SOLUTIONS_DIR), emu=emu, sandbox=sandbox)
    sandbox_active = None
    try:
        for name in names:
            start = time.monotonic()
            report = grade_one(name, Source(f"sub-hostile-{name}", HERE / name, submission=True), emu=emu, sandbox=sandbox)
            result = report.results[0]
            sandbox_active = any(n.startswith("sandbox on") for n in report.notes)
            expect = EXPECTED[name]
            verdict, reason = expect.verdict, expect.reason
            if not sandbox_active:
                verdict, reason = expect.verdict_off or verdict, expect.reason_off or reason
            ok = verdict == "*" or (result.verdict == verdict and any(part in result.reason for part in reason.split("|")))
            log(f"{'ok ' if ok else 'BAD'} {name:15s} {result.verdict:4s} {time.monotonic() - start:5.1f}s  "
                f"{result.reason[:110]}")
            if not ok:
                problems.append(f"{name}: got {result.verdict} ({result.reason}), wanted {verdict} ({reason})")
            if result.reason != one_line(result.reason) or not _reports_parse(report):
                problems.append(f"{name}: the reason is not one printable line, or a report does not parse")
            if SECRET in result.reason or any(SECRET in n for n in report.notes):
                problems.append(f"{name}: the secret reached the report")
            if expect.flagged and not (result.timing_flagged and expect.flagged in result.timing_note):
                problems.append(f"{name}: timing not flagged ({result.timing_note!r})")
            if expect.kills and not report.results:
                problems.append(f"{name}: the grader did not survive it")
            if not sandbox_active and not any(n.startswith("WARNING: SANDBOX OFF") for n in report.notes):
                problems.append(f"{name}: the sandbox was off and the report does not say so loudly")
            if _daemons():
                problems.append(f"{name}: left a process running: {_daemons()}")
        # The same grader process, after all that, still grades the reference right.
        report = grade_one("solution", Source("solution", SOLUTIONS_DIR), emu=emu, sandbox=sandbox)
        if report.results[0].verdict != "AC":
            problems.append(f"the reference after the corpus: {report.results[0].verdict} {report.results[0].reason}")
    finally:
        listener.close()
        del os.environ["LABKIT_SECRET"]
    if sandbox_active:
        if "network" in names and listener.heard:
            problems.append(f"network: the listener outside the sandbox heard {listener.heard!r}")
        problems += [f"write_outside: {p} was written" for p in ESCAPED if p.exists() and "write_outside" in names]
    for path in ESCAPED:
        path.unlink(missing_ok=True)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    log(f"grader's peak memory grew by {grown_mb:.0f} MB over the corpus; sandbox "
        f"{'on' if sandbox_active else 'OFF'}")
    if grown_mb > 200:
        problems.append(f"the grader's own memory grew by {grown_mb:.0f} MB")
    return problems


def main(argv: list[str]) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpu", action="store_true", help="build for the GPU (default: the CPU emulator)")
    p.add_argument("--sandbox", default="auto", choices=MODES)
    p.add_argument("names", nargs="*", help=f"some of: {' '.join(EXPECTED)}")
    args = p.parse_args(argv)
    problems = grade_corpus(emu=not args.gpu, sandbox=args.sandbox, names=args.names or None)
    for problem in problems:
        print("PROBLEM:", problem)
    failed = len({p.split(":")[0] for p in problems})
    ran = len(args.names) if args.names else sum(not (e.gpu_only and not args.gpu) and not e.kills
                                                 for e in EXPECTED.values())
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
