"""Cross-checks a program's own timing figures with what the grader saw from outside.

The harness times the student's GPU work (CUDA events: kernel_ms; host clock: total_ms) and
writes the figures to $LABKIT_RESULT. The student's code runs in the same process, so it can
overwrite that file or the figures; no secret can prevent that. What the grader can do is
check the figures against evidence the student's code cannot touch:

- the process's wall time, measured by the grader: total_ms cannot be longer than the process
  lived, and kernel_ms cannot be longer than total_ms (which includes it);
- missing, negative or non-numeric figures on a case that exited normally;
- kernel_host_ms, when a harness reports it (the same span as kernel_ms on the host clock, ending
  with cudaDeviceSynchronize()): much longer than kernel_ms means the GPU was still busy with
  work the events did not see, e.g. kernels left running on another stream;
- on a GPU, with the reference solution timed in the same run: a reported time within the
  threshold while the whole process took far longer than the reference's
  (slow_factor x its wall time + WALL_GRACE_S).

A flagged case's time is not trusted: it is judged on its wall time against the reference's
instead, and the report lists it for a TA to look at. Not caught: a forgery consistent with all
of the above (small made-up figures on a lab whose kernels are a small part of the run), or CPU
code doing the GPU's work inside the timed functions.
"""

from __future__ import annotations

import math

from grader.run import RunOutcome

WALL_GRACE_S = 1.0  # start-up, input and output differ a little between two runs
SLACK_MS = 2.0  # clock granularity and the time between the harness's clock and exit


def _time(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def figure_doubts(figures: dict, outcome: RunOutcome) -> list[str]:
    """What in the program's own figures cannot be true, given what the grader observed."""
    doubts = []
    times = {}
    for name in ("kernel_ms", "total_ms"):
        if name not in figures:
            doubts.append(f"no {name} in the program's result file")
            continue
        times[name] = _time(figures[name])
        if times[name] is None:
            doubts.append(f"{name} = {figures[name]!r} is not a time")
    kernel, total = times.get("kernel_ms"), times.get("total_ms")
    wall_ms = outcome.wall_s * 1000
    if total is not None and total > wall_ms * 1.02 + SLACK_MS:
        doubts.append(f"total_ms {total:.3f} is longer than the process lived "
                      f"({wall_ms:.1f} ms, timed by the grader)")
    if kernel is not None and total is not None and kernel > total * 1.02 + SLACK_MS:
        doubts.append(f"kernel_ms {kernel:.3f} is longer than total_ms {total:.3f}, which includes it")
    kernel_host = _time(figures.get("kernel_host_ms"))
    if kernel is not None and kernel_host is not None and kernel_host > 2 * kernel + SLACK_MS:
        doubts.append(f"the host waited {kernel_host:.3f} ms for kernels the GPU timed at {kernel:.3f} ms: "
                      f"work left running on another stream?")
    return doubts


def wall_doubt(metric: str, value: float, limit: float, wall_s: float, reference_wall_s: float,
               slow_factor: float) -> str | None:
    """A reported time within the limit that the process's own wall time contradicts."""
    wall_limit = slow_factor * reference_wall_s + WALL_GRACE_S
    if value <= limit and wall_s > wall_limit:
        return (f"reported {metric} {value:.3f} is within the limit, but the process took {wall_s:.2f} s "
                f"against the reference's {reference_wall_s:.2f} s (more than {slow_factor:g} x + "
                f"{WALL_GRACE_S:g} s)")
    return None


def judged_on_wall(wall_s: float, reference_wall_s: float | None, slow_factor: float) -> tuple[bool, str]:
    """(slow, what was compared) for a case whose own figures are not trusted."""
    if reference_wall_s is None:
        return False, "no reference wall time to judge it on"
    wall_limit = slow_factor * reference_wall_s + WALL_GRACE_S
    return wall_s > wall_limit, (f"judged on wall time instead: {wall_s:.2f} s vs limit {wall_limit:.2f} s "
                                 f"({slow_factor:g} x reference {reference_wall_s:.2f} s + {WALL_GRACE_S:g} s)")
