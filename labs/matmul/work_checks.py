"""matmul's own work checks (lab.toml [[work.check]]; grader/work.py says how they are run)."""

from __future__ import annotations

from grader.work import CaseFacts, kernels, student_launches, total


def tiled_in_shared(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The tiled kernel: tiles staged in __shared__, and about 2 n^3 / tile floats read from
    global memory per product, not 2 n^3."""
    launches = student_launches(profile)
    n = int(facts.params.get("n", 0))
    if not launches or n <= 0:
        return None
    products = max(sum(1 for l in launches if l["kernel"] == k) for k in {l["kernel"] for l in launches})
    floats = total(launches, "global_load", "bytes") / 4 / products
    shared = total(launches, "shared_load", "requests")
    limit = float(settings.get("max_global_fraction", 0.25))
    # Plus one read of A and B: at n smaller than a tile, every kernel reads 2 n^3 = 2 n^2 n.
    if shared and floats <= limit * 2 * n ** 3 + 2 * n ** 2:
        return None
    return (f"{kernels(launches)} read {floats / n ** 3:.2f} n^3 floats from global memory per product"
            f"{' and used no __shared__' if not shared else ''}: a tiled kernel stages tiles in __shared__ and "
            f"reads about 2 n^3 / tile (at most {2 * limit:g} n^3 here)")


CHECKS = {
    "tiled_in_shared": tiled_in_shared,
}
