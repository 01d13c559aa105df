"""The nbody lab's own work checks (lab.toml [[work.check]]), judged from the emulator's profile.

Each is (profile, facts, settings) -> None when met, else the reason a student reads; the grader
looks a name up here first, then in grader/work.py. Tests: tests/nbody/test_nbody_work_checks.py.

The force kernels read each source as one float4 (16 bytes) or as its four floats; either way a
thread applying all n sources to its body reads at least n values of them, so a launch that does
the all-pairs work makes at least n^2 loads (global and shared together).
"""

from __future__ import annotations

from grader.work import CaseFacts, student_launches, total

BODY_BYTES = 16  # a float4: x, y, z, mass
# Below this many bodies the step's kernel (3 float4 loads a body, 12 as floats) makes as many
# loads as all-pairs work: the checks cannot tell the force kernel apart and judge nothing.
FEWEST_BODIES = 16


def body_count(facts: CaseFacts) -> int | None:
    """n: every case of the lab states it in its params (a text input has no header to read)."""
    n = facts.params.get("n")
    return int(n) if n and int(n) >= FEWEST_BODIES else None


def _loads(launch: dict, space: str, field: str) -> int:
    return total([launch], space, field)


def all_pairs_launches(profile: dict, n: int) -> list[dict]:
    """The student's launches that did all-pairs work: n^2 loads or more."""
    return [launch for launch in student_launches(profile)
            if _loads(launch, "global_load", "accesses") + _loads(launch, "shared_load", "accesses") >= n * n]


def thread_per_body(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """One thread per destination body: no launch runs n + one block of threads or more (no
    thread per pair, no p^2 threads a tile), and the launch that applies all n^2 pairs runs at
    least n threads.

    The profile counts a member of an element (pos[j].x) as its own 4-byte load, and does not see
    accesses through pointer arithmetic (*(pos + j), (pos + j)->x: labs/emu/README.md), so a
    kernel reading its sources that way shows fewer than n^2 loads: where no launch shows them,
    the count is not judged."""
    n = body_count(facts)
    launches = student_launches(profile)
    if not n or not launches:
        return None
    for launch in launches:
        x, y, z = launch.get("block", [1, 1, 1])
        block = max(1, x * y * z)
        threads = launch.get("threads", 0)
        if threads >= n + block:
            return (f"{launch['kernel']} ran {threads} threads for n = {n} bodies ({threads / n:.1f} a body): "
                    f"the lab's kernels run one thread per destination body, which applies every source itself "
                    f"(P threads a tile, not P^2 summing across threads)")
    for launch in all_pairs_launches(profile, n):
        if launch.get("threads", 0) < n:
            return (f"{launch['kernel']} ran {launch.get('threads', 0)} threads for n = {n} bodies: one thread per "
                    f"destination body, n / block rounded up blocks")
    return None


def tile_in_shared(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The tiled kernel: sources staged in __shared__, each read from global memory about n / p
    times, not n: global loads of bodies at most max_global_fraction of the naive n^2.
    __shared__ counts as used when the launch stores to it or loads from it (tile[k] or tile[k].x)."""
    n = body_count(facts)
    forces = all_pairs_launches(profile, n) if n else []
    if not forces:
        return None  # the work is not visible in the profile (thread_per_body says why)
    limit = float(settings.get("max_global_fraction", 0.25))
    for launch in forces:
        bodies_read = _loads(launch, "global_load", "bytes") / BODY_BYTES
        shared = _loads(launch, "shared_load", "requests") + _loads(launch, "shared_store", "requests")
        # Plus each thread's own body, and one read of all n: below a tile, every kernel reads n^2.
        if shared and bodies_read <= limit * n * n + 2 * n:
            continue
        return (f"{launch['kernel']} read {bodies_read / (n * n):.2f} n^2 bodies from global memory for n = {n}"
                f"{' and used no __shared__' if not shared else ''}: the tiled kernel loads each tile of p sources "
                f"into __shared__ once a block (about n^2 / p reads, at most {limit:g} n^2 here) and every thread "
                f"reads them from there")
    return None


CHECKS = {
    "thread_per_body": thread_per_body,
    "tile_in_shared": tile_in_shared,
}
