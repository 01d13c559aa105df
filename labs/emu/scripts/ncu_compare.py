"""The emulator's profile (EMU_PROFILE) against Nsight Compute, kernel by kernel.

On a machine with a GPU and ncu (as root, or with the GPU's performance counters open to users):

    python3 labs/emu/scripts/ncu_compare.py collect --out build/ncu-compare
    python3 labs/emu/scripts/ncu_compare.py table build/ncu-compare --write

`collect` builds each run's source twice (for the GPU, and for the emulator: one make per source
tree, SRC_ROOT=... BUILD=... EMU=0 or EMU=1, the trees side by side), runs it under ncu with METRICS
below, and under the emulator with EMU_PROFILE=<file>; it writes <run>.ncu.csv, <run>.emu.json
and <run>.log per run, and machine.json (the GPU, ncu's version, the seconds each run took).
The two sides can be collected apart: the GPU's in one short session, where no run starts past
--budget seconds (builds included; machine.json then names the runs left out), and the
emulator's anywhere, into the same folder:

    python3 labs/emu/scripts/ncu_compare.py collect --ncu-only --budget 170 --out build/ncu-compare
    python3 labs/emu/scripts/ncu_compare.py collect --emu-only --out build/ncu-compare

`table` sums both, per kernel, over a run's launches and prints the Markdown table
(equal figures shown once, differences as "emulator / ncu"); --write puts it into
labs/emu/README.md between the markers. Anywhere without a GPU, `table` reads a folder
collected elsewhere.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(KIT))

from grader.cases import argv_for, prepare  # noqa: E402
from grader.labs import load_lab  # noqa: E402

METRICS = {
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
# Shared memory's figures agree within 5% (the order lanes run in can move a few conflicts);
# global memory's must be equal.
WITHIN_5_PERCENT = {"shared_ld_conflicts", "shared_st_conflicts", "shared_ld_wavefronts", "shared_st_wavefronts"}
COLUMNS = list(METRICS)
README = KIT / "labs/emu/README.md"
BEGIN, END = "<!-- ncu-compare:begin -->", "<!-- ncu-compare:end -->"
STUDENTS = KIT / "tests/students"


def _matmul(kernel: str, n: int) -> dict:
    return {"name": f"matmul-{kernel}-n{n}", "lab": "matmul", "source": "solutions",
            "args": ["--n", str(n), "--kernel", kernel, "--ntx", "16", "--nty", "16", "--reps", "1", "--seed", "1",
                     "--out", "{output}"]}


# Each run: a lab, the source tree (the kit's solutions, or a folder of tests/students), and
# either explicit arguments or a public case whose arguments it takes.
RUNS = [
    {"name": "increment-float", "lab": "increment", "source": "tests/students/increment/baden_increment",
     "args": ["--n", "1000000", "--block", "256", "--reps", "1", "--seed", "1", "--out", "{output}"]},
    {"name": "increment-float4", "lab": "increment", "source": "solutions",
     "args": ["--n", "1000000", "--block", "256", "--reps", "1", "--seed", "1", "--out", "{output}"]},
    *[_matmul(kernel, n) for kernel in ("naive", "naive_uncoalesced", "tiled", "tiled_uncoalesced")
      for n in (17, 100, 256)],
    {"name": "fw-rows-random-200", "lab": "fw", "source": "solutions", "case": "random-200"},
    {"name": "fw-columns-random-200", "lab": "fw", "source": "solutions", "case": "columns-random-200"},
    {"name": "apsp-gpu-g02-cycle", "lab": "apsp", "source": "solutions", "case": "gpu-g02-cycle"},
    {"name": "bfs-uniform", "lab": "bfs", "source": "solutions", "case": "bfs-uniform"},
    {"name": "frontier-uniform", "lab": "bfs", "source": "solutions", "case": "frontier-uniform"},
    {"name": "nbody-naive-cube-100", "lab": "nbody", "source": "solutions", "case": "naive-cube-100"},
    {"name": "nbody-tiled-cube-100", "lab": "nbody", "source": "solutions", "case": "tiled-cube-100"},
    {"name": "nbody-tiled-cube-256", "lab": "nbody", "source": "solutions", "case": "tiled-cube-256"},
    *[{"name": f"spmv-{kernel}-powerlaw", "lab": "spmv", "source": "solutions", "case": f"{kernel}-powerlaw"}
      for kernel in ("row", "element", "hybrid")],
]

# Why a figure differs, by kernel (the template's argument taken off): said under the table.
NOTES: dict[str, str] = {
    "tiled_uncoalesced_kernel": "shared loads: nvcc merges four consecutive `Ablock[tx][k..k+3]` of the "
    "unrolled loop into one 16-byte LDS.128 (`cuobjdump -sass`, TILE 16: 16 LDS and 4 LDS.128 per tile), "
    "which the profile models (engine/profiler.h): a difference here means the model no longer fits.",
    "fwStepK": "shared-load wavefronts: the emulator counts the source's reads of `trkc`, by the lanes that "
    "reach them (`!inside ||` skips it, and a second read in `trkc + tckr`); nvcc loads it once per warp, "
    "before the branch, in every warp (ncu: one wavefront a warp, 320000 = 200 launches x 1600 warps). Loads "
    "kept in registers and hoisted are not modelled: this is the source-level figure. Global stores: the "
    "emulator's are fewer (15% of requests, 7% of sectors). A thread's two entries are stored by one line in a "
    "loop of two, each store under its own test; nvcc unrolls the loop into two store instructions, one per "
    "entry, while the emulator groups a warp's lanes by their n-th store from that line, so a lane that "
    "stores only its second entry joins the lanes storing their first (the predicated stores of an unrolled "
    "loop: not modelled).",
    "fwStepKColumns": "shared-load wavefronts: the emulator counts the source's reads of `tckr`, in the test and "
    "in the sum, by the lanes that reach them; nvcc loads it once per warp, before the branch. Loads kept in "
    "registers and hoisted are not modelled: this is the source-level figure.",
    "relax_edges": "fewer stores in the emulator (5% of requests, 15% of sectors): it runs a warp's lanes "
    "one after another, so when two edges reach one vertex in a level, the second lane already reads the "
    "depth the first one stored and stores nothing, where on the GPU both lanes read -1 before either "
    "stores (the lab's benign race). Which lanes see an earlier store also depends on which blocks the "
    "CPU threads run side by side, so the emulator's store figures move by a few requests from run to run "
    "(4854 to 4858 in three runs). Loads are equal.",
    "expand_small_frontiers": "the frontier is built with atomicAdd positions, so which lane writes where, "
    "and so the addresses of the later loads and stores, depend on the order the atomics ran: the GPU's and "
    "the emulator's orders differ (within 2% for loads, 7% for stores); a few bank conflicts of its shared "
    "queue likewise.",
    "spmv_row_kernel": "global loads: the GPU's are more (11% of requests, 4% of sectors); stores are equal. "
    "The emulator counts the source's trips of the row loop (a warp's k-th trip once, for the lanes whose rows "
    "are that long). nvcc runs that loop in four parts (`cuobjdump -sass`, nvcc 13.0, sm_90): (length mod 4) "
    "trips one at a time, a body of 16 trips while more than 12 remain, a block of 8, a block of 4, each load "
    "of each part its own instruction; a warp issues one if any of its lanes runs it, so a warp whose rows "
    "differ in length issues more loads than its longest row's trips. Counted that way on this matrix "
    "(`labs/emu/scripts/unrolled_row_loop.py row-powerlaw`), the loads are ncu's exactly, requests and "
    "sectors; the emulator does not model the unrolling: this is the source-level figure.",
    "spmv_row_part_kernel": "as spmv_row_kernel's, for the same loop over a row's first `line` nonzeros "
    "(`unrolled_row_loop.py hybrid-powerlaw` gives ncu's figures).",
    "gather_kernel": "global loads: the emulator's are more. The source reads `row_ptr[row]` twice (in the test "
    "and as the index); nvcc loads it once and keeps it in a register. The source-level figure.",
    "mark_heads_kernel": "as gather_kernel's: `row_ptr[row]` read twice in the source, loaded once by nvcc.",
    "fill_adjacency": "the adjacency list's slots come from atomicAdd: the order differs from the GPU's, and "
    "so which sectors the stores touch (3 sectors of 7879).",
}


def kernel_key(name: str) -> str:
    """A kernel's name without parameters or template arguments: 'tiled_kernel'."""
    name = name.split("(")[0]
    depth, out = 0, []
    for c in name:
        depth += c == "<"
        if depth == 0:
            out.append(c)
        depth -= c == ">"
    # ncu's "void tiled_kernel<16>(...)": the return type goes too.
    return "".join(out).strip().split()[-1] if "".join(out).strip() else ""


def _program_argv(run: dict, program: Path, output: Path) -> tuple[list[str], str]:
    lab = load_lab(run["lab"])
    if "case" in run:
        case = next(c for c in lab.cases if c.name == run["case"])
        ready = prepare(lab, case)
        return argv_for(program.parent / case.program, ready, output), case.program
    values = {"output": str(output)}
    return [str(program)] + [a.format_map(values) for a in run["args"]], lab.programs[0]


def _build_folder(source: str, emu: bool) -> Path:
    return KIT / "build" / "ncu-compare-builds" / f"{'emu-' if emu else ''}{source.replace('/', '_')}"


def _build_all(runs: list[dict], emu: bool) -> None:
    """Every lab the runs need, one make per source tree, the trees side by side (one device call
    holds the whole collection: builds must not take it one lab after another)."""
    labs_by_source: dict[str, list[str]] = {}
    for run in runs:
        labs_by_source.setdefault(run["source"], [])
        if run["lab"] not in labs_by_source[run["source"]]:
            labs_by_source[run["source"]].append(run["lab"])
    makes = {}
    for source, labs in labs_by_source.items():
        cmd = ["make", "--no-print-directory", "-C", str(KIT), *labs, f"SRC_ROOT={(KIT / source).resolve()}",
               f"BUILD={_build_folder(source, emu)}", f"-j{os.cpu_count() or 4}", f"EMU={1 if emu else 0}"]
        makes[source] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for source, make in makes.items():
        output = make.communicate()[0]
        if make.returncode != 0:
            raise SystemExit(f"ncu_compare: building {' '.join(labs_by_source[source])} from {source} "
                             f"({'EMU=1' if emu else 'GPU'}) failed:\n{output[-4000:]}\n"
                             "fix the build, then run collect again")


def collect(out: Path, only: list[str], sides: tuple[bool, ...] = (False, True), budget_s: float | None = None) -> int:
    """Runs `only` (all of RUNS when empty) in the order given. Past `budget_s` seconds no run is
    started: what was left is printed and kept in machine.json, and table marks it not collected."""
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    by_name = {run["name"]: run for run in RUNS}
    unknown = [name for name in only if name not in by_name]
    if unknown:
        raise SystemExit(f"ncu_compare: no run named {', '.join(unknown)}; the runs are {', '.join(by_name)}")
    runs = [by_name[name] for name in only] if only else list(RUNS)
    ncu = os.environ.get("NCU", "ncu")
    if False in sides and shutil.which(ncu) is None:
        raise SystemExit(f"ncu_compare: Nsight Compute's {ncu!r} is not on PATH: collect the GPU's side on a machine "
                         "with a GPU and ncu (or set NCU=/path/to/ncu); --emu-only collects the emulator's side here")
    machine: dict = {}
    for command, key in (([ncu, "--version"], "ncu"),
                         (["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], "gpu")):
        try:
            machine[key] = subprocess.run(command, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        except (OSError, IndexError):
            machine[key] = "unknown"
    for emu in sides:
        _build_all(runs, emu)
    machine["build_s"] = round(time.monotonic() - started, 1)
    print(f"built in {machine['build_s']} s", flush=True)
    failed, seconds, left = 0, {}, []
    for run in runs:
        name = run["name"]
        if budget_s is not None and time.monotonic() - started > budget_s:
            left.append(name)
            continue
        run_started = time.monotonic()
        log = []
        for emu in sides:
            folder = _build_folder(run["source"], emu) / run["lab"]
            argv, _ = _program_argv(run, folder / load_lab(run["lab"]).programs[0], out / f"{name}.out")
            if emu:
                env = {**os.environ, "EMU_PROFILE": str(out / f"{name}.emu.json")}
                done = subprocess.run(argv, capture_output=True, text=True, env=env)
            else:
                done = subprocess.run([ncu, "--metrics", ",".join(METRICS.values()), "--csv", "--print-units", "base",
                                       "--log-file", str(out / f"{name}.ncu.csv"), *argv],
                                      capture_output=True, text=True)
            log.append(f"$ {' '.join(argv)}{' (EMU_PROFILE)' if emu else ' (ncu)'}\nexit {done.returncode}\n"
                       f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}\n")
            if done.returncode != 0:
                failed += 1
        (out / f"{name}{'.emu' if sides == (True,) else ''}.log").write_text("".join(log))
        seconds[name] = round(time.monotonic() - run_started, 1)
        print(f"{name}: collected in {seconds[name]} s", flush=True)
    if left:
        print(f"ncu_compare: past the budget of {budget_s} s, not collected: {' '.join(left)}; "
              f"collect them with --only {' '.join(left)} into the same folder", flush=True)
    if False in sides:  # the GPU's side: which machine it was, and what each run took there
        machine.update(run_seconds=seconds, not_collected=left)
        (out / "machine.json").write_text(json.dumps(machine, indent=1) + "\n")
    return 1 if failed or left else 0


def ncu_figures(path: Path) -> dict[str, dict[str, float]]:
    """{kernel: {column: sum over its launches, "launches": n}} from ncu's --csv report."""
    text = path.read_text(errors="replace")
    start = text.find('"ID"')
    figures: dict[str, dict[str, float]] = {}
    if start < 0:
        return figures
    by_metric = {metric: column for column, metric in METRICS.items()}
    launches: dict[str, set] = {}
    for row in csv.DictReader(text[start:].splitlines()):
        metric = by_metric.get(row.get("Metric Name", ""))
        if metric is None:
            continue
        kernel = kernel_key(row.get("Kernel Name", ""))
        value = float(row.get("Metric Value", "0").replace(",", "") or 0)
        figures.setdefault(kernel, {c: 0.0 for c in COLUMNS})[metric] += value
        launches.setdefault(kernel, set()).add(row.get("ID"))
    for kernel, ids in launches.items():
        figures[kernel]["launches"] = len(ids)
    return figures


def emu_figures(path: Path) -> dict[str, dict[str, float]]:
    profile = json.loads(path.read_text())
    figures: dict[str, dict[str, float]] = {}
    for launch in profile["launches"]:
        row = figures.setdefault(kernel_key(launch["kernel"]), {c: 0.0 for c in COLUMNS} | {"launches": 0})
        row["launches"] += 1
        for site in launch["sites"]:
            load, store = site.get("global_load", {}), site.get("global_store", {})
            row["ld_requests"] += load.get("requests", 0)
            row["ld_sectors"] += load.get("sectors", 0)
            row["st_requests"] += store.get("requests", 0)
            row["st_sectors"] += store.get("sectors", 0)
            shared_load, shared_store = site.get("shared_load", {}), site.get("shared_store", {})
            row["shared_ld_conflicts"] += shared_load.get("conflicts", 0)
            row["shared_st_conflicts"] += shared_store.get("conflicts", 0)
            row["shared_ld_wavefronts"] += shared_load.get("wavefronts", 0)
            row["shared_st_wavefronts"] += shared_store.get("wavefronts", 0)
    return figures


def _cell(emu: float | None, ncu: float | None, column: str) -> tuple[str, bool]:
    """('65536', True) when they agree (shared memory's figures: within 5%), else ('100 / 120', False)."""
    if emu is None or ncu is None:
        return f"{'-' if emu is None else int(emu)} / {'-' if ncu is None else int(ncu)}", False
    close = emu == ncu if column not in WITHIN_5_PERCENT else abs(emu - ncu) <= 0.05 * max(emu, ncu)
    return (f"{int(emu)}" if emu == ncu else f"{int(emu)} / {int(ncu)}"), close


def table(folder: Path) -> str:
    machine = json.loads((folder / "machine.json").read_text()) if (folder / "machine.json").exists() else {}
    lines = [f"Measured on {machine.get('gpu', 'a GPU')} with {machine.get('ncu', 'ncu')}; the emulator's figure "
             f"first where they differ (emulator / ncu). Sums over every launch of the kernel in the run.",
             "",
             "| run | kernel | launches | ld requests | ld sectors | st requests | st sectors | shared ld conflicts "
             "| shared st conflicts | shared ld wavefronts | shared st wavefronts | equal |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    differing = []
    for run in RUNS:
        emu_path, ncu_path = folder / f"{run['name']}.emu.json", folder / f"{run['name']}.ncu.csv"
        if not emu_path.exists() or not ncu_path.exists():
            lines.append(f"| {run['name']} | (not collected) |" + " |" * (len(COLUMNS) + 2))
            continue
        emu, ncu = emu_figures(emu_path), ncu_figures(ncu_path)
        for kernel in sorted(set(emu) | set(ncu)):
            e, n = emu.get(kernel), ncu.get(kernel)
            cells, ok = [], True
            for column in COLUMNS:
                text, close = _cell(e and e[column], n and n[column], column)
                cells.append(text)
                ok = ok and close
            launches = _cell(e and e["launches"], n and n["launches"], "launches")[0]
            lines.append(f"| {run['name']} | `{kernel}` | {launches} | " + " | ".join(cells) + f" | {'yes' if ok else 'no'} |")
            if not ok:
                differing.append(kernel)
    lines.append("")
    for kernel in dict.fromkeys(differing):
        if kernel in NOTES:
            lines.append(f"- `{kernel}`: {NOTES[kernel]}")
    return "\n".join(lines) + "\n"


def write_into_readme(text: str, readme: Path = README) -> None:
    content = readme.read_text()
    if BEGIN not in content or END not in content:
        raise SystemExit(f"ncu_compare: {readme} has no {BEGIN} ... {END} markers: put them where the table goes")
    head, rest = content.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{text}{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="on a GPU: build, run under ncu and under the emulator")
    c.add_argument("--out", type=Path, default=KIT / "build/ncu-compare")
    c.add_argument("--only", nargs="*", default=[], help="run names, collected in this order (default: all)")
    c.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="start no run past this many seconds (builds included): for a device lent by the minute")
    side = c.add_mutually_exclusive_group()
    side.add_argument("--ncu-only", action="store_true", help="the GPU's side alone (the emulator's is the same anywhere)")
    side.add_argument("--emu-only", action="store_true", help="the emulator's side alone, into a folder ncu filled")
    t = sub.add_parser("table", help="print the comparison of a collected folder")
    t.add_argument("folder", type=Path)
    t.add_argument("--write", action="store_true", help=f"put it into {README.relative_to(KIT)} between the markers")
    args = parser.parse_args(argv)
    if args.command == "collect":
        sides = (False,) if args.ncu_only else (True,) if args.emu_only else (False, True)
        return collect(args.out.resolve(), args.only, sides, args.budget)
    text = table(args.folder)
    print(text, end="")
    if args.write:
        write_into_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
