"""bfs's own work checks (lab.toml [[work.check]]; grader/work.py says how they are run)."""

from __future__ import annotations

from grader.work import CaseFacts, student_launches, total


def thread_per_edge(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """Edge relaxation (bfs.c), one thread per edge each level."""
    launches = student_launches(profile)
    if facts.m is None or facts.m == 0 or not launches:
        return None
    # The launches that read the edges (at least m values): each must run a thread per edge.
    relaxing = [launch for launch in launches if total([launch], "global_load", "accesses") >= facts.m]
    narrow = [launch for launch in relaxing if launch.get("threads", 0) < facts.m]
    if not narrow:
        return None
    widest = max(launch.get("threads", 0) for launch in narrow)
    return (f"{narrow[0]['kernel']} read the edges with {widest} thread{'s' if widest != 1 else ''} in a launch "
            f"for m = {facts.m} edges: relaxation runs one thread per edge, every level")


def linear_work(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The frontier BFS: total work O(V + E): the lanes' global accesses within a multiple of n + m."""
    launches = student_launches(profile)
    if facts.n is None or facts.m is None or not launches:
        return None
    accesses = total(launches, "global_load", "accesses") + total(launches, "global_store", "accesses")
    factor = float(settings.get("max_accesses_per_vertex_and_edge", 64))
    limit = factor * (facts.n + 2 * facts.m + 1)
    if accesses <= limit:
        return None
    return (f"{accesses} global reads and writes for n = {facts.n}, m = {facts.m}: "
            f"{accesses / (facts.n + 2 * facts.m + 1):.0f} per vertex and edge; a frontier BFS touches each vertex "
            f"and edge a few times (at most {factor:g} here), not every vertex at every level")


CHECKS = {
    "thread_per_edge": thread_per_edge,
    "linear_work": linear_work,
}
