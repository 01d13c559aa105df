"""The scaling experiment of Hochberg's module ([Hochberg 2012], section 2.3): fw on
undirected cycles of 10, 20, 30, ... vertices, ten runs each, the kernel time corrected by
subtracting runs that copy the matrix to the card and back without launching a kernel.

    python3 labs/fw/scripts/scaling.py --csv fw-scaling.csv --png fw-scaling.png
        [--fw PROGRAM] [--max 1800] [--step 10] [--runs 10] [--version rows]
    python3 labs/fw/scripts/scaling.py --plot fw-scaling.csv --png fw-scaling.png

For each n, one process runs `fw CYCLE --runs R`: after an untimed warm-up it alternates R
copy-only runs with R full runs, as the module alternated its two programs, and reports the means
(labs/fw/main.cpp, timed_runs). The CSV has, per n, the mean whole run with kernels, the mean
copy-only run, their difference (the module's figure), and the kernels' own time measured with
CUDA events, which needs no correction, with the fastest of the R runs: one slow run lifts a mean
of ten, and shows as a spike that the fastest run does not have. The plot is a PNG drawn in pure
Python (png_plot.py), so this runs on a GPU node without matplotlib.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

from fw_program import add_fw_options, device_of, fit_for_emulator, parse_fw_args, run_fw

HERE = Path(__file__).resolve().parent
KIT = HERE.parents[2]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(KIT))

from png_plot import line_plot  # noqa: E402

COLUMNS = ["n", "whole_ms", "copy_only_ms", "corrected_ms", "kernel_ms", "kernel_ms_min"]


def load_gen():
    import importlib.util
    spec = importlib.util.spec_from_file_location("fw_gen", KIT / "testcases" / "fw" / "gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_size(fw: Path, n: int, runs: int, version: str, scratch: Path, gen) -> tuple[dict, str]:
    graph = scratch / f"undircycle{n}.txt"
    graph.write_text(gen.undir_cycle(n))
    proc, figures = run_fw(fw, graph, "--runs", runs, "--version", version)
    if proc.returncode != 0 or figures is None:
        raise SystemExit(f"fw failed on n = {n} (exit {proc.returncode}):\n{proc.stderr}{proc.stdout[-2000:]}")
    return ({"n": n, "whole_ms": figures["total_ms"], "copy_only_ms": figures["copy_only_ms"],
             "corrected_ms": figures["corrected_ms"], "kernel_ms": figures["kernel_ms"],
             "kernel_ms_min": figures["kernel_ms_min"]}, figures.get("device", "?"))


def plot(rows: list[dict], png: Path, device: str) -> None:
    x = [float(r["n"]) for r in rows]
    line_plot(png, x, {
        "whole run - copy-only run (the module's correction)": [float(r["corrected_ms"]) for r in rows],
        "kernels, timed with CUDA events: mean": [float(r["kernel_ms"]) for r in rows],
        "kernels, timed with CUDA events: fastest run": [float(r["kernel_ms_min"]) for r in rows],
    }, title=f"fw on undirected n-cycles, ten runs each ({device})", xlabel="vertices n", ylabel="ms")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_fw_options(p, "hours at --max 1800")
    p.add_argument("--min", type=int, default=10)
    p.add_argument("--max", type=int, default=1800)
    p.add_argument("--step", type=int, default=10)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--version", default="rows")
    p.add_argument("--csv", type=Path, help="write the figures here")
    p.add_argument("--png", type=Path, help="draw the plot here")
    p.add_argument("--plot", type=Path, metavar="CSV", help="only draw the plot of an existing CSV")
    p.add_argument("--device", default=None, help="the GPU's name for the plot's title (with --plot)")
    args = parse_fw_args(p)

    if args.plot:
        with args.plot.open() as f:
            rows = list(csv.DictReader(f))
        plot(rows, args.png or args.plot.with_suffix(".png"), args.device or "GPU")
        return 0
    if not args.fw.exists():
        raise SystemExit(f"{args.fw} is missing: build it first (make SOL=1 fw)")
    fit_for_emulator(args, device_of(args.fw), {"max": 200, "runs": 3})
    gen = load_gen()
    rows, device = [], "?"
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{'n':>6} {'whole ms':>10} {'copies ms':>10} {'difference':>11} {'kernels ms':>11}", flush=True)
        for n in range(args.min, args.max + 1, args.step):
            row, device = run_size(args.fw, n, args.runs, args.version, Path(scratch), gen)
            rows.append(row)
            print(f"{n:6d} {row['whole_ms']:10.3f} {row['copy_only_ms']:10.3f} {row['corrected_ms']:11.3f} "
                  f"{row['kernel_ms']:11.3f}", flush=True)
    print(f"device: {device}")
    if args.csv:
        with args.csv.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})
    if args.png:
        plot(rows, args.png, device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
