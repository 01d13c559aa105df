"""Work requirements: a right answer is not enough, the lab's work must have made it.

lab.toml's [work] says what each lab asks; this module judges it from the emulator's profile of
the run (EMU_PROFILE, labs/emu/src/engine/profiler.h), a pure function of the profile, the
case and the rules (tests: grader/tests/test_work.py). Not met: the verdict WORK, with a reason
that names what is missing, and the case keeps lab.toml's `credit` share of its points.

    [work]
    computed_by_kernels = "all"    # every byte of the result last written by a kernel ("all"),
                                   # some of it ("any": a kernel updates what the host uploaded),
                                   # or "off"; either way never computed or changed on the host
    programs = ["gpu"]             # the programs it applies to (default: every one)
    exempt_cases = ["gpu-c01-one-vertex"]   # cases that leave a kernel nothing to write
    credit = 0.0                   # share of a case's points kept when a requirement is not met

    [[work.check]]                 # more checks, each on the cases whose params match `when`
    check = "tiled_in_shared"      # a function below (CHECKS)
    when = { kernel = "tiled" }    # case params, or "program"
    max_global_fraction = 0.25     # the check's own settings

Where the profile comes from: under the emulator, the first run of each case writes it into its
work folder (grade.py's run_case sets EMU_PROFILE; the case's other runs, in a random order or
on other device counts, make none). A GPU run has none: on a GPU node each case that is not
GPU-sized runs once more under the emulated build (grade.py, Grader._work_on_gpu_node).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

WORK = "WORK"  # the verdict (grader/verdict.py)
PROFILE_NAME = "profile.json"
KIT_FILE = re.compile(r"(^|/)labs/[a-z]+/")  # the kit's harness and emulator, not the student's


class WorkConfigError(Exception):
    """lab.toml's [work] is wrong: the message says where and what to write."""


@dataclass(frozen=True)
class Check:
    name: str
    when: dict
    settings: dict


@dataclass(frozen=True)
class WorkRules:
    computed_by_kernels: str = "off"
    programs: tuple[str, ...] = ()
    exempt_cases: tuple[str, ...] = ()
    credit: float = 0.0
    checks: tuple[Check, ...] = field(default_factory=tuple)

    @property
    def active(self) -> bool:
        return self.computed_by_kernels != "off" or bool(self.checks)


def parse_rules(table: dict, where: str) -> WorkRules:
    """lab.toml's [work] table; WorkConfigError names the key that is wrong."""
    mode = table.get("computed_by_kernels", "off")
    if mode not in ("all", "any", "off"):
        raise WorkConfigError(f"{where}: [work] computed_by_kernels = {mode!r}: use \"all\", \"any\" or \"off\"")
    checks = []
    for raw in table.get("check", []):
        name = raw.get("check")
        if name not in CHECKS:
            raise WorkConfigError(f"{where}: [[work.check]] check = {name!r}: use one of {', '.join(sorted(CHECKS))}")
        settings = {k: v for k, v in raw.items() if k not in ("check", "when")}
        checks.append(Check(name, dict(raw.get("when", {})), settings))
    credit = float(table.get("credit", 0.0))
    if not 0.0 <= credit <= 1.0:
        raise WorkConfigError(f"{where}: [work] credit = {credit}: a share of the points, from 0 to 1")
    return WorkRules(mode, tuple(table.get("programs", ())), tuple(table.get("exempt_cases", ())), credit,
                     tuple(checks))


@dataclass(frozen=True)
class CaseFacts:
    """What the grader knows of the case, not from the program: its name, program, params, the
    sizes in its input file's header (apsp and bfs: int32 n, int32 m), the emulated devices."""
    name: str
    program: str
    params: dict
    n: int | None = None
    m: int | None = None
    devices: int = 1


def header_sizes(path: Path | None) -> tuple[int | None, int | None]:
    """(n, m) from the first 8 bytes of a binary graph file, or (None, None)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
        n, m = struct.unpack("<ii", head)
        return (n, m) if n >= 0 and m >= 0 else (None, None)
    except (OSError, TypeError, struct.error):
        return None, None


# ---- Reading the profile.
def student_launches(profile: dict) -> list[dict]:
    return [launch for launch in profile.get("launches", []) if not KIT_FILE.search(launch.get("file", ""))]


def _total(launches: list[dict], kind: str, field_name: str) -> int:
    return sum(site.get(kind, {}).get(field_name, 0) for launch in launches for site in launch.get("sites", []))


def _kernels(launches: list[dict]) -> str:
    names = list(dict.fromkeys(launch["kernel"] for launch in launches))
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "") if names else "no kernel"


def _where(writer: dict) -> str:
    file = writer.get("file") or "?"
    return f"{writer.get('name', 'a copy')} at {file}:{writer.get('line', 0)}" if writer.get("line") else \
        f"a {writer.get('name', 'copy')} (its line unknown)"


# ---- The checks. Each: (profile, facts, settings) -> None when met, else the reason.
def computed_by_kernels(profile: dict, facts: CaseFacts, mode: str) -> str | None:
    writers = {w["id"]: w for w in profile.get("writers", [])}
    outputs = profile.get("outputs", [])
    for output in outputs:
        what = output.get("what", "the result")
        kernel_bytes, host_copies, other = 0, {}, 0
        for part in output.get("parts", []):
            if part.get("device", -1) < 0:
                # Through a buffer of its own (copied back, then into the result on the host): as
                # many bytes as the part must have come back from what kernels wrote.
                staged = output.get("staged_kernel_bytes", 0)
                if staged >= part["bytes"] or mode == "any" and staged > 0:
                    kernel_bytes += min(staged, part["bytes"])
                    continue
                return (f"{part['bytes']} bytes of {what} were never copied back from the device: they were "
                        f"computed on the host, not by your kernels")
            if part.get("changed_on_host"):
                return (f"{what} was changed on the host after the copy back from the device at "
                        f"{part.get('file') or '?'}:{part.get('line', 0)}: the kernels must compute all of it")
            for writer_id, count in part.get("writers", []):
                writer = writers.get(writer_id, {})
                if writer.get("kind") == "kernel":
                    kernel_bytes += count
                elif writer.get("kind") == "host_copy":
                    host_copies[writer_id] = host_copies.get(writer_id, 0) + count
                else:
                    other += count
        total = max(1, output.get("bytes", 1))
        students = {w: c for w, c in host_copies.items() if not KIT_FILE.search(writers[w].get("file", ""))}
        if mode == "all" and kernel_bytes < total:
            if host_copies:
                worst = max(host_copies, key=host_copies.get)
                return (f"{100 * host_copies[worst] / total:.0f}% of {what} was last written by "
                        f"{_where(writers[worst])}, not by a kernel: the kernels must compute all of it")
            return (f"{100 * (total - kernel_bytes) / total:.0f}% of {what} was never written by a kernel "
                    f"(a cudaMemset's or nothing's): the kernels must compute all of it")
        if mode == "any" and kernel_bytes == 0 and students:
            worst = max(students, key=students.get)
            return (f"no kernel wrote any of {what}: it is what {_where(writers[worst])} put there, "
                    f"computed on the host")
    return None


def tiled_in_shared(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """matmul's tiled kernel: tiles staged in __shared__, and about 2 n^3 / tile floats read from
    global memory per product, not 2 n^3."""
    launches = student_launches(profile)
    n = int(facts.params.get("n", 0))
    if not launches or n <= 0:
        return None
    products = max(sum(1 for l in launches if l["kernel"] == k) for k in {l["kernel"] for l in launches})
    floats = _total(launches, "global_load", "bytes") / 4 / products
    shared = _total(launches, "shared_load", "requests")
    limit = float(settings.get("max_global_fraction", 0.25))
    # Plus one read of A and B: at n smaller than a tile, every kernel reads 2 n^3 = 2 n^2 n.
    if shared and floats <= limit * 2 * n ** 3 + 2 * n ** 2:
        return None
    return (f"{_kernels(launches)} read {floats / n ** 3:.2f} n^3 floats from global memory per product"
            f"{' and used no __shared__' if not shared else ''}: a tiled kernel stages tiles in __shared__ and "
            f"reads about 2 n^3 / tile (at most {2 * limit:g} n^3 here)")


def coalesced_loads(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """Each array a warp reads: sectors per request near 4 (coalesced), not 32."""
    launches = student_launches(profile)
    limit = float(settings.get("max_sectors_per_request", 8))
    # Blocks narrower than this make a warp span rows: even the coalesced indexing reads apart.
    if int(facts.params.get("ntx", 32)) < int(settings.get("min_ntx", 8)):
        return None
    sites: dict[tuple, list[int]] = {}
    for launch in launches:
        for site in launch.get("sites", []):
            load = site.get("global_load")
            if load:
                key = (site["file"], site["line"], site["name"])
                sums = sites.setdefault(key, [0, 0])
                sums[0] += load["requests"]
                sums[1] += load["sectors"]
    requests = sum(r for r, _ in sites.values())
    for (file, line, name), (req, sectors) in sites.items():
        if req >= 0.1 * requests and sectors / req > limit:
            return (f"{name} is read at {Path(file).name}:{line} with {sectors / req:.1f} 32-byte sectors per warp "
                    f"request: the lanes of a warp read addresses far apart (uncoalesced); make threadIdx.x walk "
                    f"along the row, so a warp's loads are near 4 sectors (at most {limit:g} here)")
    return None


def launch_per_step(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """fw: one launch per k."""
    n = facts.params.get("n")
    launches = student_launches(profile)
    if not n:
        return None
    if len(launches) >= int(n):
        return None
    return (f"{len(launches)} kernel launch{'es' if len(launches) != 1 else ''} for n = {n} vertices: the lab's "
            f"Floyd-Warshall launches its kernel once per k ({n} launches)")


def blocked_in_shared(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """apsp gpu: blocked Floyd-Warshall, the blocks in __shared__: global reads far below n^3."""
    launches = student_launches(profile)
    block = int(settings.get("block", 64))
    if facts.n is None or not launches:
        return None
    n_padded = max(block, -(-facts.n // block) * block)
    ints = _total(launches, "global_load", "bytes") / 4
    shared = _total(launches, "shared_load", "requests")
    limit = float(settings.get("max_global_fraction", 0.5))
    # And the work itself: every one of the n^3 updates reads shared memory, a few values a load.
    least = n_padded ** 3 / block
    shared_reads = _total(launches, "shared_load", "accesses")
    if shared and ints <= limit * n_padded ** 3 and shared_reads >= least:
        return None
    if shared and ints <= limit * n_padded ** 3:
        return (f"{_kernels(launches)} read shared memory {shared_reads} times for n = {facts.n}: blocked "
                f"Floyd-Warshall's n^3 updates read it at least {least:.0f} times (n^3 / {block})")
    return (f"{_kernels(launches)} read {ints / n_padded ** 3:.2f} n^3 ints from global memory"
            f"{' and used no __shared__' if not shared else ''}: blocked Floyd-Warshall keeps its {block} x {block} "
            f"blocks in __shared__ and reads about 3 n^3 / {block} (at most {limit:g} n^3 here)")


def every_device_works(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """apsp multigpu: every device runs kernels and computes its band; pivot rows travel."""
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


def thread_per_edge(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """bfs: edge relaxation, one thread per edge each level."""
    launches = student_launches(profile)
    if facts.m is None or facts.m == 0 or not launches:
        return None
    # The launches that read the edges (at least m values): each must run a thread per edge.
    relaxing = [launch for launch in launches if _total([launch], "global_load", "accesses") >= facts.m]
    narrow = [launch for launch in relaxing if launch.get("threads", 0) < facts.m]
    if not narrow:
        return None
    widest = max(launch.get("threads", 0) for launch in narrow)
    return (f"{narrow[0]['kernel']} read the edges with {widest} thread{'s' if widest != 1 else ''} in a launch "
            f"for m = {facts.m} edges: relaxation runs one thread per edge, every level")


def linear_work(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """bfs frontier: total work O(V + E): the lanes' global accesses within a multiple of n + m."""
    launches = student_launches(profile)
    if facts.n is None or facts.m is None or not launches:
        return None
    accesses = _total(launches, "global_load", "accesses") + _total(launches, "global_store", "accesses")
    factor = float(settings.get("max_accesses_per_vertex_and_edge", 64))
    limit = factor * (facts.n + 2 * facts.m + 1)
    if accesses <= limit:
        return None
    return (f"{accesses} global reads and writes for n = {facts.n}, m = {facts.m}: "
            f"{accesses / (facts.n + 2 * facts.m + 1):.0f} per vertex and edge; a frontier BFS touches each vertex "
            f"and edge a few times (at most {factor:g} here), not every vertex at every level")


CHECKS = {
    "tiled_in_shared": tiled_in_shared,
    "coalesced_loads": coalesced_loads,
    "launch_per_step": launch_per_step,
    "blocked_in_shared": blocked_in_shared,
    "every_device_works": every_device_works,
    "thread_per_edge": thread_per_edge,
    "linear_work": linear_work,
}


def case_options(args: tuple[str, ...] | list[str], params: dict) -> dict:
    """The case's `--name value` arguments, its params filled in ({n} -> 17), with its params:
    what `when` matches (a hidden case spells `--kernel tiled` in its args, not its params)."""
    options = {}
    for i, arg in enumerate(args[:-1]):
        if arg.startswith("--") and not args[i + 1].startswith("--"):
            try:
                value = args[i + 1].format_map(params)
            except (KeyError, ValueError, IndexError):
                continue
            options[arg[2:]] = int(value) if value.isdigit() else value
    return {**options, **params}


def _applies(when: dict, facts: CaseFacts) -> bool:
    # A value of "" matches a case without that param: { kernel = "tiled", baseline = "" }.
    return all(facts.program == value if key == "program" else facts.params.get(key, "") == value
               for key, value in when.items())


def judge(rules: WorkRules, facts: CaseFacts, profile: dict | None) -> str | None:
    """None when the run did the lab's work (or nothing is asked of this case), else the reason."""
    if not rules.active or (rules.programs and facts.program not in rules.programs):
        return None
    if profile is None:
        return ("the emulator's profile of the run is missing (it is written at exit): did the program end "
                "with _exit() or a signal? let main() return")
    if rules.computed_by_kernels != "off" and facts.name not in rules.exempt_cases:
        reason = computed_by_kernels(profile, facts, rules.computed_by_kernels)
        if reason:
            return reason
    for check in rules.checks:
        if _applies(check.when, facts):
            reason = CHECKS[check.name](profile, facts, check.settings)
            if reason:
                return reason
    return None
