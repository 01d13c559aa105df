"""fw's own work checks (lab.toml [[work.check]]; grader/work.py says how they are run)."""

from __future__ import annotations

from grader.work import CaseFacts, student_launches


def launch_per_step(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The module's Floyd-Warshall: a kernel launch per k, so at least n launches (the case's n)."""
    n = facts.params.get("n")
    launches = student_launches(profile)
    if not n:
        return None
    if len(launches) >= int(n):
        return None
    return (f"{len(launches)} kernel launch{'es' if len(launches) != 1 else ''} for n = {n} vertices: the lab's "
            f"Floyd-Warshall launches its kernel once per k ({n} launches)")


CHECKS = {
    "launch_per_step": launch_per_step,
}
