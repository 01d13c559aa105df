"""Is the program's own timing figure backed by kernels the GPU record shows ran?

    timed_repetitions(record, *, reps, warmups=0, kit_kernels=()) -> list[list[Kernel]] | str
        The student's kernel launches of each repetition (warm-ups first), or a reason why they
        cannot be told apart: the launches between the first copy to a device and the last copy
        back (the harness's timed loop sits there: labs/<lab>/main.cpp),
        shared out in order, alike, over warmups + reps repetitions.
    timing_backed(repetitions, figure_ms, *, warmups=0) -> TimingEvidence
        Whether kernel_ms (the harness's figure per repetition: a mean or a median) is backed:
        every repetition launched the same kernels (name, grid, block) as the first; no timed
        repetition's kernels ran far shorter than the others' (work done once and then skipped:
        results cached between calls with the same arguments, a warm-up detected); and the
        kernels' busy time per repetition is not longer than the figure (work the harness's
        events did not see: another stream, a forged figure). A pure function.

Tolerances (the figures come from two clocks of one GPU: CUDA events and CUPTI's timestamps):
- BUSY_OVER_FIGURE: the events bracket the kernels of their stream, so the kernels' busy time is
  at most the figure, up to the events' resolution (about 0.5 us) and a launch's edge effects;
  25% and SLACK_MS more is far below what hidden work costs (the corpus's other_stream hides
  50 ms behind a figure of a few microseconds).
- SKIPPED_FRACTION: a repetition of the same launches on the same data runs within a small factor
  of the others (a cold cache or a first touch makes the first slower by up to about 2x); a
  repetition at under a quarter of the slowest, and SLACK_MS below it, did not do the same work.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection
from dataclasses import dataclass

from grader.evidence.record import Copy, Kernel, Record, kernel_key

BUSY_OVER_FIGURE = 1.25
SKIPPED_FRACTION = 0.25
SLACK_MS = 0.05


@dataclass(frozen=True)
class TimingEvidence:
    backed: bool
    reason: str  # one line: what backs the figure, or what does not
    busy_ms: tuple[float, ...] = ()  # each timed repetition's kernel busy time


def _busy_ms(kernels: list[Kernel]) -> float:
    """The time at least one of the kernels ran (overlapping kernels counted once), in ms."""
    spans = sorted((k.start_ns, k.end_ns) for k in kernels if k.end_ns > k.start_ns)
    busy, reach = 0, None
    for start, end in spans:
        if reach is None or start > reach:
            busy += end - start
            reach = end
        elif end > reach:
            busy += end - reach
            reach = end
    return busy / 1e6


def timed_repetitions(record: Record, *, reps: int, warmups: int = 0,
                      kit_kernels: Collection[str] = ()) -> list[list[Kernel]] | str:
    """See the module's docstring."""
    kit = {kernel_key(n) for n in kit_kernels}
    events = list(record.events)
    first_in = next((i for i, e in enumerate(events) if isinstance(e, Copy) and e.direction == "HtoD"), -1)
    last_out = next((i for i in range(len(events) - 1, -1, -1)
                     if isinstance(events[i], Copy) and events[i].direction == "DtoH"), len(events))
    launches = [e for e in events[first_in + 1:last_out] if isinstance(e, Kernel) and e.key not in kit]
    total = warmups + reps
    if total <= 0:
        raise ValueError(f"reps={reps}, warmups={warmups}: at least one repetition")
    if not launches:
        return (f"the GPU run launched no kernel between the copy in and the copy out, where the harness "
                f"times {reps} repetition{'s' if reps != 1 else ''}")
    if len(launches) % total:
        return (f"the GPU run launched {len(launches)} kernels between the copy in and the copy out, which "
                f"{warmups} warm-up and {reps} timed repetitions cannot share alike: the repetitions did not "
                f"all launch the same kernels")
    per = len(launches) // total
    return [launches[i * per:(i + 1) * per] for i in range(total)]


def _shape(kernels: list[Kernel]) -> list[tuple]:
    return [(k.key, k.grid, k.block) for k in kernels]


def timing_backed(repetitions: list[list[Kernel]], figure_ms: float, *, warmups: int = 0) -> TimingEvidence:
    """See the module's docstring."""
    if not repetitions or len(repetitions) <= warmups:
        return TimingEvidence(False, "no timed repetition in the GPU record")
    first = _shape(repetitions[0])
    for number, repetition in enumerate(repetitions[1:], 2):
        if _shape(repetition) != first:
            launched = ", ".join(dict.fromkeys(k.name for k in repetition)) or "no kernel"
            return TimingEvidence(False, f"repetition {number} launched {launched}, not what repetition 1 launched "
                                  f"({', '.join(dict.fromkeys(k.name for k in repetitions[0]))})")
    busy_all = [_busy_ms(r) for r in repetitions]
    timed = tuple(busy_all[warmups:])
    slowest = max(busy_all)
    for number, busy in enumerate(busy_all, 1):
        if number > warmups and busy < slowest * SKIPPED_FRACTION - SLACK_MS:
            return TimingEvidence(False, f"repetition {number}'s kernels ran {busy:.4f} ms, the slowest "
                                  f"{slowest:.4f} ms: the same launches did not do the same work "
                                  f"(results kept from an earlier call, or a warm-up detected?)", timed)
    typical = statistics.median(timed)
    if typical > figure_ms * BUSY_OVER_FIGURE + SLACK_MS:
        return TimingEvidence(False, f"the kernels of a timed repetition ran {typical:.4f} ms (GPU record), the "
                              f"program reported {figure_ms:.4f} ms: work the harness's timer did not see "
                              f"(another stream?) or a figure that was not measured", timed)
    return TimingEvidence(True, f"backed: {len(timed)} timed repetitions of {len(first)} launch"
                          f"{'es' if len(first) != 1 else ''}, {typical:.4f} ms of kernels each against "
                          f"{figure_ms:.4f} ms reported", timed)
