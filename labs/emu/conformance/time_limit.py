"""What a conformance run's time limit counts: wall-clock seconds, or the CPU seconds the program
got (all its threads together). On a shared machine other work stretches a run's wall time but
not its CPU time, so a CPU limit times out only programs that are slow themselves."""

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

CLOCKS = ("wall", "cpu")
# With the CPU clock, the wall clock stops a run only at this many times the limit: a program
# that sleeps or blocks uses no CPU, and must still end.
WALL_BACKSTOP = 10


def cpu_seconds(pid):
    """The CPU time (user and system, all its threads) a running process has had so far, or None
    where /proc cannot tell (not Linux, or the process has gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    except (OSError, IndexError, ValueError):
        return None


def over_limit(pid, elapsed, limit, clock):
    """Whether a run `elapsed` wall seconds old has used up `limit` seconds of `clock`."""
    if clock != "cpu":
        return elapsed > limit
    used = cpu_seconds(pid)
    return elapsed > limit * WALL_BACKSTOP or (used if used is not None else elapsed) > limit


@dataclass
class Run:
    """One run of a program under a limit (run_limited)."""
    output: str  # stdout and stderr together
    returncode: int  # negative: killed by that signal (our own SIGKILL where stopped)
    stopped: str  # "": it exited; "limit": past its own limit; "end": the run as a whole had to end
    wall_s: float
    cpu_s: float  # user and system, all its threads and the children it waited for


def run_limited(command, cwd, limit, clock="wall", env=None, end=None):
    """Runs command in cwd in its own session, stdin closed, and kills its whole process
    group once it is over `limit` seconds of `clock` (over_limit) or once time.monotonic()
    passes `end` (a whole conformance run's hard end, so that it writes its results in time).
    The conformance runners' one way to run a build or a program."""
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(process.stdout.read()))  # a full pipe must not stall it
    reader.start()
    stopped = ""
    while True:  # os.wait4, not Popen.wait: it gives the child's resource usage
        pid, wait_status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        now = time.monotonic()
        if end is not None and now > end:
            stopped = "end"
        elif over_limit(process.pid, now - start, limit, clock):
            stopped = "limit"
        if stopped:
            os.killpg(process.pid, signal.SIGKILL)
            _, wait_status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.05)
    process.returncode = os.waitstatus_to_exitcode(wait_status)
    reader.join()  # ends when the last process holding the pipe (the killed group's) has gone
    process.stdout.close()
    output = b"".join(chunk for chunk in chunks if chunk).decode(errors="replace")
    return Run(output, process.returncode, stopped, time.monotonic() - start, usage.ru_utime + usage.ru_stime)


def describe(limit, clock):
    """The limit as a result's detail says it: "60 s", or "60 s of CPU"."""
    return f"{limit:g} s of CPU" if clock == "cpu" else f"{limit:g} s"


def clock_help(what):
    return (f"what {what} counts: wall-clock seconds (default), or the CPU seconds the run got, all its "
            "threads together, so that a shared machine's other work does not time a program out (the "
            f"wall clock then stops it at {WALL_BACKSTOP}x)")


def add_time_arguments(parser, timeout):
    """The options both runners (run.py, hecbench.py) take alike: a program's limit and the clock it
    counts, and the whole run's deadline and end."""
    parser.add_argument("--timeout", type=float, default=timeout,
                        help=f"seconds a program may run (default {timeout:g})")
    parser.add_argument("--clock", choices=CLOCKS, default="wall", help=clock_help("--timeout"))
    parser.add_argument("--deadline", type=float, default=0,
                        help="seconds after which no further program starts (default: none)")
    parser.add_argument("--end", type=float, default=0,
                        help="seconds after which every build and run still going is stopped and counted "
                             "not_run, so that the results are written in time (default: none)")
