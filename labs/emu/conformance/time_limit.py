"""What a conformance run's time limit counts: wall-clock seconds, or the CPU seconds the program
got (all its threads together). On a shared machine other work stretches a run's wall time but
not its CPU time, so a CPU limit times out only programs that are slow themselves."""

import os

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


def describe(limit, clock):
    """The limit as a result's detail says it: "60 s", or "60 s of CPU"."""
    return f"{limit:g} s of CPU" if clock == "cpu" else f"{limit:g} s"


def clock_help(what):
    return (f"what {what} counts: wall-clock seconds (default), or the CPU seconds the run got, all its "
            "threads together, so that a shared machine's other work does not time a program out (the "
            f"wall clock then stops it at {WALL_BACKSTOP}x)")
