"""spmv's own work checks (lab.toml [[work.check]]; grader/work.py says how they are run).

The sizes: a binary CSR input opens with int32 rows, int32 nnz ([work] input_header = ["n", "m"]);
a Matrix Market case states them in its params (`rows`, `nnz`), which win. The hybrid's case
states the rule's line and the nonzeros past it (`line`, `past_line`: spmv_tool line INPUT);
without them only the harness's own check of the line (it compares spmv_line with the rule)
judges the hybrid.

Two measures of the emulator's profile carry these checks. At one load site, a warp's *requests*
count how many times its lanes executed it (the k-th execution by each lane is one request), so
requests per warp bound what one thread does there. Accesses per request count the lanes that
took part: a loop whose trip count differs from lane to lane (rows of different lengths) leaves
lanes idle, and its requests carry few accesses.
"""

from __future__ import annotations

from grader.work import CaseFacts, kernels, student_launches, total

WARP = 32


def _sizes(facts: CaseFacts) -> tuple[int | None, int | None]:
    rows = facts.params.get("rows", facts.n)
    nnz = facts.params.get("nnz", facts.m)
    return (int(rows) if rows is not None else None), (int(nnz) if nnz is not None else None)


def _block_threads(launch: dict) -> int:
    block = launch.get("block", [256, 1, 1])
    return max(1, block[0] * block[1] * block[2])


def _warps(launch: dict) -> int:
    """The warps the launch ran: its blocks, each rounded up to whole warps."""
    block = _block_threads(launch)
    blocks = max(1, launch.get("threads", 0) // block)
    return max(1, blocks * -(-block // WARP))


def _busiest_load(launch: dict) -> tuple[float, dict | None]:
    """The most requests per warp at one global load site of the launch, and that site."""
    best, where = 0.0, None
    for site in launch.get("sites", []):
        requests = site.get("global_load", {}).get("requests", 0)
        if requests / _warps(launch) > best:
            best, where = requests / _warps(launch), site
    return best, where


def _per_row(launches: list[dict], rows: int) -> list[dict]:
    """Launches of one thread per row: at least `rows` threads, fewer than rows plus a block."""
    return [l for l in launches if rows <= l.get("threads", 0) < rows + _block_threads(l)]


def thread_per_row(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The per-row kernel: one launch runs a thread per row and reads the whole matrix."""
    launches = student_launches(profile)
    rows, nnz = _sizes(facts)
    if not launches or rows is None or nnz is None:
        return None
    reading = [l for l in launches if total([l], "global_load", "accesses") >= nnz]
    if any(l in reading for l in _per_row(launches, rows)):
        return None
    widest = max(l.get("threads", 0) for l in launches)
    return (f"no launch ran one thread per row over the matrix (rows = {rows}, nnz = {nnz}; {kernels(launches)} ran at "
            f"most {widest} threads): the per-row kernel launches rows / block size blocks, rounded up, and each "
            f"thread walks its own row")


def element_work_even(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The per-element version: a launch of a thread per nonzero reads them, and no thread's work
    follows a row's length (the lanes of a warp load together; each lane a bounded number of times)."""
    launches = student_launches(profile)
    rows, nnz = _sizes(facts)
    if not launches or rows is None or not nnz:
        return None
    if not any(l.get("threads", 0) >= nnz and total([l], "global_load", "accesses") >= nnz for l in launches):
        widest = max(l.get("threads", 0) for l in launches)
        return (f"no launch ran a thread per nonzero (nnz = {nnz}; the widest, of {kernels(launches)}, ran {widest} "
                f"threads): thread per element does one multiply per nonzero, each in its own thread")
    most = float(settings.get("max_requests_per_warp", 64))
    for launch in launches:
        busiest, site = _busiest_load(launch)
        if busiest > most:
            return (f"{launch['kernel']} loads {site.get('name', '?')} {busiest:.0f} times per warp at line "
                    f"{site.get('line', 0)}: a thread of the per-element version does a bounded amount of work, "
                    f"never a loop over a row (at most {most:g} here)")
    if nnz < int(settings.get("lanes_from_nnz", 1024)):
        return None  # a few nonzeros fill few warps: idle lanes there say nothing of row lengths
    requests = total(launches, "global_load", "requests")
    lanes = total(launches, "global_load", "accesses") / max(1, requests)
    fewest = float(settings.get("min_lanes_per_request", 16))
    if lanes < fewest:
        return (f"the loads of {kernels(launches)} kept {lanes:.1f} of a warp's 32 lanes busy on average: threads "
                f"whose work follows their row's length (a loop over a row) wait on the longest one; thread per "
                f"element gives every lane the same work (at least {fewest:g} lanes here)")
    return None


def hybrid_split(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The hybrid: the per-row part stops at the rule's line; the per-element part runs a thread
    per nonzero past it."""
    launches = student_launches(profile)
    rows, _ = _sizes(facts)
    line, past = facts.params.get("line"), facts.params.get("past_line")
    if not launches or rows is None or line is None or past is None:
        return None
    line, past = int(line), int(past)
    per_row = _per_row(launches, rows)
    if not per_row:
        return (f"no launch ran one thread per row (rows = {rows}): the hybrid's per-row part runs a thread per row "
                f"over each row's first K = {line} nonzeros")
    for launch in per_row:
        busiest, site = _busiest_load(launch)
        if busiest > line + 1:
            return (f"{launch['kernel']} loads {site.get('name', '?')} {busiest:.1f} times per warp at line "
                    f"{site.get('line', 0)}: the per-row part walks past the rule's line, K = {line} (each row's "
                    f"first {line} nonzeros; the rest go to the per-element part)")
    if past and not any(past <= l.get("threads", 0) < past + _block_threads(l) for l in launches):
        counts = sorted({l.get("threads", 0) for l in launches})
        return (f"no launch ran one thread per nonzero past the line: the rule's line K = {line} leaves {past} "
                f"nonzeros to the per-element part, and the launches ran {', '.join(map(str, counts[:6]))}"
                f"{' ...' if len(counts) > 6 else ''} threads: is the line where the rule puts it?")
    return None


CHECKS = {"thread_per_row": thread_per_row, "element_work_even": element_work_even, "hybrid_split": hybrid_split}
