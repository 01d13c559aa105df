"""The GPU's own counters of each kernel's global memory traffic, held against the emulated profile.

    counters_allowed() -> Permission
        Whether this process may read the GPU's performance counters: as root, or where the
        NVIDIA driver does not keep profiling to admins (RmProfilingAdminOnly: 0 in
        /proc/driver/nvidia/params). Permission.allowed, and .why for the report ("counters: not
        allowed here (RmProfilingAdminOnly=1, not root): evidence from the GPU record alone").
    ncu_argv(program_argv, csv_path, ncu="ncu") -> list[str]
        The command that runs the case's program under Nsight Compute, writing the metrics
        below to csv_path (ncu --csv; the same metrics as labs/emu/scripts/ncu_compare.py).
    parse_ncu_csv(text) -> dict[str, KernelTraffic] | str
        {kernel key: its sectors and requests summed over its launches, and the launch count},
        or a reason when the text holds no metrics (ncu failed: the text says why). Pure.
    emulated_traffic(profile) -> dict[str, KernelTraffic]
        The same figures from the emulator's EMU_PROFILE JSON. Pure.
    compare_traffic(gpu, emulated, *, tolerance=TOLERANCE, kit_kernels=()) -> list[str]
        Each kernel whose global loads or stores differ by more than the tolerance, as a line
        naming the kernel and both figures ("tiled_kernel: global load bytes 0 on the GPU,
        44800 emulated"); a kernel only one side ran is named too. Pure.

Why sectors and why this tolerance: the emulator counts 32-byte sectors per warp request the way
ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st} does, and the figures are equal on every
deterministic kernel of the references (labs/emu/README.md's table, ncu on an H100). Where a
kernel's stores depend on which thread wins a race (BFS's relaxation, the frontier's appends),
the GPU's schedule changes them: up to 15% apart there (relax_edges' store sectors). TOLERANCE
is 20% of the larger figure plus one warp request's worth (MIN_SECTORS) for the tiny cases: a
kernel launched with the right name and grid that skips its work moves its sectors by far more.
A lab whose kernels are all deterministic can pass tolerance=0.

Why bytes too: the emulator counts each access the source makes, and the compiler may merge a
thread's reads of neighbouring members into one wider load (pos[j].x, .y, .z and .w of a float4
as one 16-byte load): fewer requests and sectors on the GPU, for the same work. The distinct
bytes a request's lanes ask for (ncu's smsp__sass_data_bytes_mem_global_op_{ld,st}, the profile's
"data_bytes") do not change with that: four 4-byte reads of one float4 or one 16-byte read, 16
bytes. Equal to ncu's on the kernels grader/tests/samples/evidence holds (an H100). So where
both sides give them, the bytes must agree, and the GPU's sectors may be fewer than the
emulator's but not more; without them (an ncu that lacks the metric, a profile written before
it), the sectors must agree.
"""

from __future__ import annotations

import csv
import os
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from grader.evidence.record import kernel_key
from grader.text import one_line

METRICS = {
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "ld_bytes": "smsp__sass_data_bytes_mem_global_op_ld.sum",
    "st_bytes": "smsp__sass_data_bytes_mem_global_op_st.sum",
}
TOLERANCE = 0.20
MIN_SECTORS = 32
MIN_BYTES = 32 * MIN_SECTORS
NVIDIA_PARAMS = Path("/proc/driver/nvidia/params")


@dataclass
class KernelTraffic:
    launches: int = 0
    ld_requests: int = 0
    ld_sectors: int = 0
    st_requests: int = 0
    st_sectors: int = 0
    ld_bytes: int = 0
    st_bytes: int = 0
    bytes_measured: bool = False  # ld_bytes and st_bytes were given (an ncu or a profile may lack them)


@dataclass(frozen=True)
class Permission:
    allowed: bool
    why: str


def permission_from(euid: int, params_text: str | None) -> Permission:
    """counters_allowed's pure part: the effective uid and the driver's params file (None: unreadable)."""
    if euid == 0:
        return Permission(True, "counters: allowed (root)")
    if params_text is None:
        return Permission(False, "counters: not allowed here (no NVIDIA driver parameters to read, not root): "
                          "evidence from the GPU record alone")
    for line in params_text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "RmProfilingAdminOnly":
            if value.strip() == "0":
                return Permission(True, "counters: allowed (RmProfilingAdminOnly=0)")
            return Permission(False, f"counters: not allowed here (RmProfilingAdminOnly={value.strip()}, not root): "
                              "evidence from the GPU record alone; an administrator can set the NVIDIA module's "
                              "NVreg_RestrictProfilingToAdminUsers=0")
    return Permission(False, "counters: not allowed here (the driver does not say RmProfilingAdminOnly, not root): "
                      "evidence from the GPU record alone")


def counters_allowed() -> Permission:
    try:
        params = NVIDIA_PARAMS.read_text()
    except OSError:
        params = None
    return permission_from(os.geteuid(), params)


def ncu_path() -> str:
    """Nsight Compute's command: on the PATH, or in the CUDA toolkit."""
    found = shutil.which("ncu")
    if found:
        return found
    for root in filter(None, (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda")):
        if (Path(root) / "bin" / "ncu").exists():
            return str(Path(root) / "bin" / "ncu")
    return "ncu"


def ncu_install_dirs(ncu: str) -> list[Path]:
    """The folders Nsight Compute runs from, for a sandbox's read-only view: its command's own
    folder and, where the toolkit's ncu is a launcher, the installs it looks for (a folder
    nsight-compute-* beside the toolkit's bin/, or under /opt/nvidia)."""
    command = Path(shutil.which(ncu) or ncu).resolve()
    toolkit = command.parent.parent
    found = [command.parent, *toolkit.glob("nsight-compute*"), *Path("/opt/nvidia").glob("nsight-compute*")]
    return [folder for folder in dict.fromkeys(found) if folder.is_dir()]


def ncu_argv(program_argv: list[str], csv_path: Path, ncu: str = "ncu") -> list[str]:
    return [ncu, "--metrics", ",".join(METRICS.values()), "--csv", "--print-units", "base",
            "--log-file", str(csv_path), *program_argv]


def what_ncu_said(output: str) -> str:
    """Nsight Compute's own error line from a run that left no figures (": ==ERROR== ..."), or the
    run's last line; empty when it printed nothing. A note's words, never a verdict's."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    said = _error_line(output) or (lines[-1] if lines else "")
    return f": {one_line(said[:200])}" if said else ""


def _error_line(text: str) -> str:
    """The first line of Nsight Compute's output that reports an error ("==ERROR== ..."), or ""."""
    return next((line.strip() for line in text.splitlines() if "ERR" in line or "error" in line.lower()), "")


def _number(text: str) -> int:
    return int(round(float(text.replace(",", "") or 0)))


def parse_ncu_csv(text: str) -> dict[str, KernelTraffic] | str:
    """See the module's docstring."""
    start = text.find('"ID"')
    if start < 0:
        said = _error_line(text)
        return "ncu reported no metrics" + (f": {said[:200]}" if said else " (no table in its output)")
    by_metric = {metric: column for column, metric in METRICS.items()}
    traffic: dict[str, KernelTraffic] = {}
    launches: dict[str, set] = {}
    try:
        for row in csv.DictReader(text[start:].splitlines()):
            column = by_metric.get(row.get("Metric Name") or "")
            if column is None:
                continue
            key = kernel_key(row.get("Kernel Name") or "")
            figures = traffic.setdefault(key, KernelTraffic())
            setattr(figures, column, getattr(figures, column) + _number(row.get("Metric Value") or "0"))
            figures.bytes_measured |= column.endswith("_bytes")
            launches.setdefault(key, set()).add(row.get("ID"))
    except (ValueError, csv.Error) as fault:
        return f"ncu's table does not parse: {fault}"
    if not traffic:
        return "ncu's table holds none of the metrics asked for (ncu of another version?)"
    for key, ids in launches.items():
        traffic[key].launches = len(ids)
    return traffic


def emulated_traffic(profile: dict) -> dict[str, KernelTraffic]:
    traffic: dict[str, KernelTraffic] = {}
    for launch in profile.get("launches", []):
        figures = traffic.setdefault(kernel_key(launch.get("kernel", "")), KernelTraffic(bytes_measured=True))
        figures.launches += 1
        for site in launch.get("sites", []):
            load, store = site.get("global_load", {}), site.get("global_store", {})
            figures.ld_requests += load.get("requests", 0)
            figures.ld_sectors += load.get("sectors", 0)
            figures.st_requests += store.get("requests", 0)
            figures.st_sectors += store.get("sectors", 0)
            figures.ld_bytes += load.get("data_bytes", 0)
            figures.st_bytes += store.get("data_bytes", 0)
            figures.bytes_measured &= all("data_bytes" in side for side in (load, store) if side)
    return traffic


def _apart(a: int, b: int, tolerance: float, least: int = MIN_SECTORS) -> bool:
    return abs(a - b) > tolerance * max(a, b) + least


def _difference(what: str, sectors: tuple[int, int], data_bytes: tuple[int, int] | None,
                tolerance: float) -> str | None:
    """How one direction (load or store) of a kernel differs, as the module's docstring says; None
    where it agrees. sectors and data_bytes: (the GPU's, the emulator's); data_bytes None where
    a side lacks them."""
    gpu_sectors, emu_sectors = sectors
    if data_bytes is not None:
        gpu_bytes, emu_bytes = data_bytes
        if _apart(gpu_bytes, emu_bytes, tolerance, MIN_BYTES):
            return f"global {what} bytes {gpu_bytes} on the GPU, {emu_bytes} emulated"
        if gpu_sectors > emu_sectors and _apart(gpu_sectors, emu_sectors, tolerance):
            return f"global {what} sectors {gpu_sectors} on the GPU, {emu_sectors} emulated (the same bytes)"
        return None
    if _apart(gpu_sectors, emu_sectors, tolerance):
        return f"global {what} sectors {gpu_sectors} on the GPU, {emu_sectors} emulated"
    return None


def compare_traffic(gpu: dict[str, KernelTraffic], emulated: dict[str, KernelTraffic], *,
                    tolerance: float = TOLERANCE, kit_kernels: Collection[str] = ()) -> list[str]:
    """See the module's docstring."""
    kit = {kernel_key(n) for n in kit_kernels}
    differences = []
    for key in sorted((set(gpu) | set(emulated)) - kit):
        g, e = gpu.get(key), emulated.get(key)
        if g is None or e is None:
            side = "the GPU run" if e is None else "the emulated run"
            differences.append(f"{key}: only {side} ran it ({(g or e).launches} launches)")
            continue
        measured = g.bytes_measured and e.bytes_measured
        for what, sectors, data_bytes in (("load", (g.ld_sectors, e.ld_sectors), (g.ld_bytes, e.ld_bytes)),
                                          ("store", (g.st_sectors, e.st_sectors), (g.st_bytes, e.st_bytes))):
            differs = _difference(what, sectors, data_bytes if measured else None, tolerance)
            if differs:
                differences.append(f"{key}: {differs} ({g.launches} and {e.launches} launches)")
    return differences
