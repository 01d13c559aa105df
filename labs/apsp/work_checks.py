"""apsp's own work checks (lab.toml [[work.check]]; grader/work.py says how they are run)."""

from __future__ import annotations

from grader.work import CaseFacts, kernels, student_launches, total


def blocked_in_shared(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The one-GPU program: blocked Floyd-Warshall, the blocks in __shared__: global reads far below n^3."""
    launches = student_launches(profile)
    block = int(settings.get("block", 64))
    if facts.n is None or not launches:
        return None
    n_padded = max(block, -(-facts.n // block) * block)
    ints = total(launches, "global_load", "bytes") / 4
    shared = total(launches, "shared_load", "requests")
    limit = float(settings.get("max_global_fraction", 0.5))
    # And the work itself: every one of the n^3 updates reads shared memory, a few values a load.
    least = n_padded ** 3 / block
    shared_reads = total(launches, "shared_load", "accesses")
    if shared and ints <= limit * n_padded ** 3 and shared_reads >= least:
        return None
    if shared and ints <= limit * n_padded ** 3:
        return (f"{kernels(launches)} read shared memory {shared_reads} times for n = {facts.n}: blocked "
                f"Floyd-Warshall's n^3 updates read it at least {least:.0f} times (n^3 / {block})")
    return (f"{kernels(launches)} read {ints / n_padded ** 3:.2f} n^3 ints from global memory"
            f"{' and used no __shared__' if not shared else ''}: blocked Floyd-Warshall keeps its {block} x {block} "
            f"blocks in __shared__ and reads about 3 n^3 / {block} (at most {limit:g} n^3 here)")


def every_device_works(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """The multi-GPU program: every device runs kernels and computes its band; pivot rows travel."""
    if facts.devices < 2:
        return None
    # Fewer block rows than devices (n = 1, one 64 x 64 block): some devices own no rows.
    block = int(settings.get("block", 64))
    if facts.n is not None and -(-facts.n // block) < facts.devices:
        return None
    devices = {d["device"]: d for d in profile.get("devices", [])}
    idle = [d for d in range(facts.devices) if devices.get(d, {}).get("launches", 0) == 0]
    if idle:
        return (f"device{'s' if len(idle) > 1 else ''} {', '.join(map(str, idle))} of {facts.devices} ran no kernel: "
                f"every GPU computes its own band of rows")
    writers = {w["id"]: w for w in profile.get("writers", [])}
    computed: dict[int, int] = {}
    output_bytes = 0
    for output in profile.get("outputs", []):
        output_bytes += output.get("bytes", 0)
        if any(part.get("device", -1) < 0 for part in output.get("parts", [])):
            # Staged through the program's own host buffer: what each device's kernels wrote and
            # the device copied back.
            for device, count in output.get("staged_own_by_device", []):
                computed[device] = computed.get(device, 0) + count
        for part in output.get("parts", []):
            for writer_id, count in part.get("writers", []):
                writer = writers.get(writer_id, {})
                if writer.get("kind") == "kernel" and writer.get("device") == part.get("device"):
                    computed[part["device"]] = computed.get(part["device"], 0) + count
    missing = [d for d in range(facts.devices) if not computed.get(d)]
    if missing and output_bytes:
        return (f"no part of the result came from device{'s' if len(missing) > 1 else ''} "
                f"{', '.join(map(str, missing))}'s kernels: each GPU computes its own band of rows and copies it back")
    exchanged = sum(d.get("from_other_devices", 0) for d in devices.values())
    through_host = sum(d.get("to_host", 0) for d in devices.values())
    if exchanged == 0 and through_host <= output_bytes:
        return ("the devices never exchanged pivot rows (no copy between devices, nothing through the host "
                "beyond the result): each round's pivot row must reach every GPU")
    return None


CHECKS = {
    "blocked_in_shared": blocked_in_shared,
    "every_device_works": every_device_works,
}
