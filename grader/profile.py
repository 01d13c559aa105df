"""`make profile LAB=<lab>`: the emulator's profile of one case, per kernel and per source line,
the figures ncu's memory tables give (requests, sectors per request, bank conflicts), on any
machine. Builds the student's code (or SOL=1, SUB=folder) under the emulator, runs the case
(default: the lab's first public case) with EMU_PROFILE, and prints the table.

    python3 -m grader.profile <lab> [--solution | --submission DIR] [--case NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.build import build_lab
from grader.cases import argv_for, prepare
from grader.labs import PUBLIC, load_lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR, STARTER_DIR
from grader.sandbox import sandbox_for


def rows(profile: dict) -> list[str]:
    """The table: a line per kernel, then a line per source line of it."""
    kernels: dict[str, dict] = {}
    for launch in profile.get("launches", []):
        k = kernels.setdefault(launch["kernel"], {"launches": 0, "lines": {}})
        k["launches"] += 1
        for site in launch.get("sites", []):
            line = k["lines"].setdefault(f"{Path(site['file']).name}:{site['line']}", {})
            for kind in ("global_load", "global_store", "shared_load", "shared_store", "global_atomic"):
                for key, value in site.get(kind, {}).items():
                    line.setdefault(kind, {}).setdefault(key, 0)
                    line[kind][key] += value
    out = [f"{'':24s} {'ld req':>10s} {'sect/req':>8s} {'st req':>10s} {'sect/req':>8s} "
           f"{'shared ld':>10s} {'conflicts':>9s} {'shared st':>10s} {'conflicts':>9s} {'atomics':>8s}"]

    def fmt(label: str, f: dict) -> str:
        def per(kind):
            r = f.get(kind, {}).get("requests", 0)
            return f"{f.get(kind, {}).get('sectors', 0) / r:8.2f}" if r else f"{'-':>8s}"
        return (f"{label[:24]:24s} {f.get('global_load', {}).get('requests', 0):10d} {per('global_load')} "
                f"{f.get('global_store', {}).get('requests', 0):10d} {per('global_store')} "
                f"{f.get('shared_load', {}).get('requests', 0):10d} {f.get('shared_load', {}).get('conflicts', 0):9d} "
                f"{f.get('shared_store', {}).get('requests', 0):10d} {f.get('shared_store', {}).get('conflicts', 0):9d} "
                f"{f.get('global_atomic', {}).get('accesses', 0):8d}")
    for name, k in kernels.items():
        total: dict = {}
        for f in k["lines"].values():
            for kind, counts in f.items():
                for key, value in counts.items():
                    total.setdefault(kind, {}).setdefault(key, 0)
                    total[kind][key] += value
        out.append(f"kernel {name}: {k['launches']} launch{'es' if k['launches'] != 1 else ''}")
        out.append(fmt("  all lines", total))
        out += [fmt(f"  {line}", f) for line, f in sorted(k["lines"].items())]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lab")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--solution", action="store_true")
    source.add_argument("--submission", type=Path)
    parser.add_argument("--case", help="a case of the lab (default: its first public case)")
    args = parser.parse_args(argv)
    lab = load_lab(args.lab)
    root = SOLUTIONS_DIR if args.solution else args.submission or STARTER_DIR
    cases = [c for c in lab.cases if (c.name == args.case if args.case else c.group == PUBLIC)]
    if not cases:
        print(f"profile: no case {args.case!r} in lab {lab.id}: see testcases/{lab.id}/cases.toml", file=sys.stderr)
        return 2
    build = build_lab(lab, src_root=root, build_dir=BUILD_DIR / f"emu-profile-{Path(root).name}", emu=True,
                      submission=bool(args.submission) and not args.solution, sandbox=sandbox_for("off"))
    if not build.ok:
        print(f"profile: the emulated build of {root} failed: {build.reason}", file=sys.stderr)
        return 1
    ready = prepare(lab, cases[0])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "profile.json"
        argv = argv_for(build.programs[cases[0].program], ready, Path(folder) / "out")
        done = subprocess.run(argv, env={**os.environ, "EMU_PROFILE": str(path)}, capture_output=True, text=True)
        if not path.exists():
            print(f"profile: {' '.join(argv)} wrote no profile (exit {done.returncode}): {done.stderr[-500:]}",
                  file=sys.stderr)
            return 1
        profile = json.loads(path.read_text())
    print(f"{lab.id}, case {cases[0].name} ({' '.join(argv[1:])}), under the emulator; requests are warp-level, "
          f"as ncu counts them (labs/emu/README.md compares them with ncu's):")
    print("\n".join(rows(profile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
