#!/usr/bin/env python3
"""The emulator's conformance run: other people's CUDA programs, built with nvcc-emu and run.

    python3 labs/emu/conformance/run.py --cuda-samples ~/src/cuda-samples --rodinia ~/src/gpu-rodinia

builds each program of programs.json (the kit's pinned list; the sources are not the kit's,
so the checkouts are given by path) with labs/emu/bin/nvcc-emu the way cuda4cpu's compat/run.py
calls a compiler: every .cu, then every .cpp of the program's folder (Rodinia: the files the list
names; .c files with the C compiler), with -I Common and -I the folder, one object each, then a
link. It runs each program in its folder with a time limit, and prints one line a program and
a table: built, ran, passed its own check (exit status 0 and no line saying it failed,
verdict.py: FAILED, FAIL, "Test failed"; for Rodinia's lud no "dismatch"), the first error. Statuses:

    passed         built, ran, its own check passed (Rodinia: ran to completion)
    waived         the program skipped itself (cuda-samples' exit status 2)
    failed         nonzero exit status, a line saying it failed, or output the list rejects
    crashed        killed by a signal
    timeout        ran past --timeout (wall-clock seconds; with --clock cpu, seconds of CPU)
    build_failed   did not compile or link (the first compiler error is shown)
    input_missing  a data file the program reads is not in the checkout (large files may be
                   left out of a snapshot)
    not_found      the program's folder is not in the checkout
    not_run        --deadline passed before it started, or --end stopped it
    skipped        not run, for the reason the list gives

With --baseline (default: baseline.json next to this script) a program that passed there and
does not now is a regression: the script says so and exits with status 1. --update-baseline
writes the results there instead.
"""

import argparse
import fnmatch
import glob
import json
import os
import re
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_samples_resize import resized_copy  # noqa: E402
from time_limit import add_time_arguments, describe, run_limited  # noqa: E402
from verdict import failure_line  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NVCC_EMU = os.path.join(os.path.dirname(HERE), "bin", "nvcc-emu")
GOOD = ("passed", "waived")


def load_programs(path):
    with open(path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    programs = []
    for suite, spec in manifest["suites"].items():
        for entry in spec["programs"]:
            program = dict(spec.get("defaults", {}))
            program.update(entry)
            program["suite"] = suite
            program.setdefault("name", os.path.basename(program["dir"]))
            program["key"] = f"{suite}/{program['name']}"
            programs.append(program)
    return programs


def program_folder(root, program):
    """The program's folder in a checkout: cuda-samples v13.4 says cpp/, older ones Samples/."""
    candidates = [program["dir"]]
    if program["dir"].startswith("cpp/"):
        candidates.append("Samples/" + program["dir"][len("cpp/"):])
    for candidate in candidates:
        if os.path.isdir(os.path.join(root, candidate)):
            return os.path.join(root, candidate)
    return None


def first_error(text):
    """The line of compiler or program output that says most about what went wrong."""
    for pattern in (r"^.*\berror\b.*$", r"^.*undefined reference to.*$", r"^cuda-emu:.*$", r"^.*(FAIL|Error|ERROR|failed).*$"):
        match = re.search(pattern, text, re.M)
        if match:
            return match.group(0).strip()[:220]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:220] if lines else ""


# Wall seconds one compile, link or CMake target build may take: a build that hangs must not
# hold a runner's thread.
BUILD_LIMIT = 600


def _cut_note(run):
    """What a build's log says where the runner stopped it."""
    return {"": "", "limit": f"\nerror: the build ran past {BUILD_LIMIT} s and was stopped",
            "end": "\nerror: the build was cut short: the conformance run's --end came first"}[run.stopped]


def build(program, folder, root, work, compiler, cc, end=None):
    """Compiles and links one program into work/; returns (executable or None, log)."""
    out = os.path.join(work, program["suite"], program["name"])
    os.makedirs(out, exist_ok=True)
    for stale in glob.glob(os.path.join(out, "*")):
        os.remove(stale)
    sources = []
    for pattern in program["sources"]:
        sources += sorted(glob.glob(os.path.join(folder, pattern)))
    if not sources:
        return None, f"no source matches {program['sources']} in {folder}"
    includes = [f"-I{os.path.join(root, i)}" for i in program.get("include", [])] + [f"-I{folder}"]
    flags = ["-O2", "-w"] + includes
    objects, log = [], []
    for number, source in enumerate(sources):
        obj = os.path.join(out, f"{number}_{os.path.basename(source)}.o")
        if source.endswith(".c"):
            command = [cc, "-c", "-o", obj, source] + flags + program.get("cflags", [])
        else:
            command = [compiler, "-c", "-o", obj, source] + flags + program.get("nvcc_flags", [])
        compiled = run_limited(command, folder, BUILD_LIMIT, end=end)
        log.append(compiled.output + _cut_note(compiled))
        if compiled.returncode != 0:
            return None, "\n".join(log)
        objects.append(obj)
    executable = os.path.join(out, program["name"])
    command = [compiler, "-o", executable] + objects + program.get("nvcc_flags", []) + ["-lm"]
    linked = run_limited(command, out, BUILD_LIMIT, end=end)
    log.append(linked.output + _cut_note(linked))
    return (executable if linked.returncode == 0 else None), "\n".join(log)


CMAKE_GLUE = os.path.join(os.path.dirname(HERE), "cmake", "not_emulated_targets.cmake")


def cmake_configure(root, build_dir, compiler):
    """Configures a checkout's own top-level CMake build with nvcc-emu as its CUDA compiler;
    returns (True, "") or (False, the first error)."""
    command = ["cmake", "-S", root, "-B", build_dir, f"-DCMAKE_CUDA_COMPILER={compiler}",
               f"-DCMAKE_PROJECT_INCLUDE={CMAKE_GLUE}", "-DCMAKE_BUILD_TYPE=Release"]
    try:
        result = run_limited(command, None, BUILD_LIMIT)
    except FileNotFoundError:
        return False, "cmake is not installed (the CMake build needs CMake 3.20 or later)"
    if result.stopped:
        return False, f"cmake's configure ran past {describe(BUILD_LIMIT, 'wall')} and was stopped"
    return result.returncode == 0, first_error(result.output)


def cmake_build(program, folder, root, build_dir, end=None):
    """Builds the program's target (its folder's name) in the configured CMake build; returns
    (executable or None, log)."""
    target = program.get("target", os.path.basename(folder))
    built = run_limited(["cmake", "--build", build_dir, "--target", target], build_dir, BUILD_LIMIT, end=end)
    executable = os.path.join(build_dir, os.path.relpath(folder, root), target)
    made = built.returncode == 0 and os.access(executable, os.X_OK)
    return (executable if made else None), built.output + _cut_note(built)


def run_program(program, executable, folder, timeout, clock="wall", end=None):
    """(status, seconds, CPU seconds, output) of one run in the program's folder. The CPU time
    (user and system, all its threads) says what the run cost where the machine is shared and
    the wall time also counts other work; with clock "cpu" it is also what --timeout limits.
    A run that the conformance run's `end` cut short is "not_run"."""
    run = run_limited([executable] + program.get("args", []), folder, timeout, clock, end=end)
    elapsed, cpu, text = run.wall_s, run.cpu_s, run.output
    if run.stopped == "end":
        return "not_run", elapsed, cpu, text + "\ncut short: the conformance run's --end came first"
    if run.stopped:
        return "timeout", elapsed, cpu, text + f"\nno exit after {describe(timeout, clock)}"
    if run.returncode < 0:
        return "crashed", elapsed, cpu, text + f"\nkilled by signal {-run.returncode} ({signal.Signals(-run.returncode).name})"
    if run.returncode == program.get("waived_exit", -1):
        return "waived", elapsed, cpu, text
    if run.returncode != 0:
        return "failed", elapsed, cpu, text + f"\nexit status {run.returncode}"
    rejected = program.get("reject")
    if rejected and re.search(rejected, text):
        return "failed", elapsed, cpu, re.search(".*" + rejected + ".*", text).group(0)
    said_failed = failure_line(text)
    if said_failed:
        return "failed", elapsed, cpu, said_failed + "\n(the program's own verdict, though it exited 0)"
    return "passed", elapsed, cpu, text


def evaluate(program, roots, work, compiler, cc, timeout, cmake_dirs=None, clock="wall", deadline=None, end=None):
    """One program's result; none is started after `deadline`, and whatever runs at `end` (both
    time.monotonic() values) is stopped: such a program is "not_run"."""
    result = {"built": False, "ran": False}
    if program.get("skip"):
        return dict(result, status="skipped", detail=program["skip"])
    if deadline is not None and time.monotonic() > deadline:
        return dict(result, status="not_run", detail="the run's --deadline passed before it started")
    root = roots.get(program["suite"])
    if root is None:
        return dict(result, status="not_found", detail=f"no --{program['suite']} checkout given")
    folder = program_folder(root, program)
    if folder is None:
        return dict(result, status="not_found", detail=f"{program['dir']} is not in the checkout")
    start = time.monotonic()
    cmake_dir = (cmake_dirs or {}).get(program["suite"])
    resized = ""
    if program.get("resize"):  # built from a copy with smaller sizes, one command a file (cuda_samples_resize.py)
        try:
            resized = resized_copy(folder, os.path.join(work, program["suite"], "resized", program["name"]),
                                   program["resize"])
        except ValueError as error:
            return dict(result, status="build_failed", detail=str(error))
        executable, log = build(program, os.path.join(work, program["suite"], "resized", program["name"]), root,
                                work, compiler, cc, end)
    elif cmake_dir is not None:
        executable, log = cmake_build(program, folder, root, cmake_dir, end)
    else:
        executable, log = build(program, folder, root, work, compiler, cc, end)
    result["build_s"] = round(time.monotonic() - start, 1)
    if executable is None and end is not None and time.monotonic() > end:
        return dict(result, status="not_run", detail="its build was cut short: the run's --end came first")
    if executable is None:
        return dict(result, status="build_failed", detail=first_error(log.replace(folder + os.sep, "")))
    result["built"] = True
    missing = [name for name in program.get("inputs", []) if not os.path.exists(os.path.join(folder, name))]
    if missing:
        return dict(result, status="input_missing", detail="not in the checkout: " + ", ".join(missing))
    status, seconds, cpu, output = run_program(program, executable, folder, timeout, clock, end)
    result.update(ran=True, status=status, run_s=round(seconds, 1), cpu_s=round(cpu, 1))
    result["detail"] = "" if status == "passed" else first_error(output.replace(folder + os.sep, ""))
    if status == "passed" and program.get("verified") is False:
        result["detail"] = "ran to completion (the program checks nothing)"
    if resized:
        result["detail"] = "; ".join(part for part in (result["detail"], resized) if part)
    return result


def table(programs, results, regressions):
    yes = lambda flag: "yes" if flag else "no"
    lines = ["| program | built | ran | passed | run s | CPU s | first error |", "|---|---|---|---|---|---|---|"]
    for program in programs:
        r = results[program["key"]]
        detail = r.get("detail", "").replace("|", "\\|")
        mark = " **regression**" if program["key"] in regressions else ""
        lines.append(f"| {program['key']} | {yes(r['built'])} | {yes(r['ran'])} | {r['status']}{mark} | "
                     f"{r.get('run_s', '')} | {r.get('cpu_s', '')} | {detail} |")
    return "\n".join(lines)


def totals(programs, results):
    lines = []
    # A program's "group" (default: its suite) is counted apart: cuda4cpu's 61 cuda-samples, and
    # the tensor-core samples beyond its list.
    for suite in dict.fromkeys(p.get("group", p["suite"]) for p in programs):
        keys = [p["key"] for p in programs if p.get("group", p["suite"]) == suite]
        counts = {}
        for key in keys:
            counts[results[key]["status"]] = counts.get(results[key]["status"], 0) + 1
        built = sum(results[key]["built"] for key in keys)
        lines.append(f"{suite}: {counts.get('passed', 0)} of {len(keys)} pass, {built} build; "
                     + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()) if status != "passed"))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cuda-samples", metavar="PATH", help="a checkout of NVIDIA/cuda-samples")
    parser.add_argument("--rodinia", metavar="PATH", help="a checkout of yuhc/gpu-rodinia")
    parser.add_argument("--work", default=os.path.join("build", "emu", "conformance"),
                        help="where the programs are built (default: build/emu/conformance)")
    parser.add_argument("--programs", default=os.path.join(HERE, "programs.json"), help="the list")
    parser.add_argument("--baseline", default=os.path.join(HERE, "baseline.json"))
    parser.add_argument("--update-baseline", action="store_true", help="write the results to --baseline")
    parser.add_argument("--filter", default="*",
                        help="only programs whose suite/name match this glob, or one of these comma-separated "
                             "globs (the timeouts of a run, run again)")
    add_time_arguments(parser, timeout=120)
    parser.add_argument("--compiler", default=NVCC_EMU, help="the drop-in compiler (default: nvcc-emu)")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"), help="the C compiler for .c files")
    parser.add_argument("--jobs", type=int, default=1,
                        help="programs built and run at once (default 1; each run's time limit still applies)")
    parser.add_argument("--cmake", action="store_true",
                        help="build cuda-samples through its own top-level CMake build (nvcc-emu as "
                             "CMAKE_CUDA_COMPILER) instead of one nvcc-emu command a file")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="write the table as Markdown")
    args = parser.parse_args(argv)
    started = time.monotonic()
    deadline = started + args.deadline if args.deadline else None
    end = started + args.end if args.end else None

    roots = {suite: os.path.abspath(path) for suite, path in
             (("cuda-samples", args.cuda_samples), ("rodinia", args.rodinia)) if path}
    if not roots:
        parser.error("give --cuda-samples PATH and/or --rodinia PATH (checkouts of the suites)")
    for suite, root in roots.items():
        if not os.path.isdir(root):
            parser.error(f"--{suite} {root}: no such folder")
    programs = [p for p in load_programs(args.programs)
                if p["suite"] in roots and any(fnmatch.fnmatch(p["key"], glob_) for glob_ in args.filter.split(","))]
    work = os.path.abspath(args.work)
    results = {}
    cmake_dirs = {}
    if args.cmake and "cuda-samples" in roots:
        cmake_dirs["cuda-samples"] = os.path.join(work, "cmake", "cuda-samples")
        configured, error = cmake_configure(roots["cuda-samples"], cmake_dirs["cuda-samples"], args.compiler)
        print(f"cuda-samples' CMake build in {cmake_dirs['cuda-samples']}: "
              + ("configured" if configured else "did not configure: " + error), flush=True)
        if not configured:
            return 2

    def evaluate_and_print(program):
        r = evaluate(program, roots, work, args.compiler, args.cc, args.timeout, cmake_dirs, args.clock, deadline, end)
        print(f"{program['key']:50} {r['status']:13} {r.get('detail', '')[:100]}", flush=True)
        return program["key"], r

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results.update(pool.map(evaluate_and_print, programs))

    baseline = {}
    if os.path.exists(args.baseline):
        with open(args.baseline, encoding="utf-8") as handle:
            baseline = json.load(handle)["status"]
    # A program the run did not get to (--deadline, --end) says nothing either way.
    regressions = [key for key, r in results.items()
                   if baseline.get(key) == "passed" and r["status"] not in GOOD + ("not_run",)]
    new_passes = [key for key, r in results.items() if r["status"] == "passed" and baseline.get(key) != "passed"]
    print()
    print(table(programs, results, regressions))
    print()
    print(totals(programs, results))
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(table(programs, results, regressions) + "\n\n" + totals(programs, results) + "\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1, sort_keys=True)
    if args.update_baseline:
        statuses = dict(baseline)
        statuses.update({key: r["status"] for key, r in results.items()})
        with open(args.baseline, "w", encoding="utf-8") as handle:
            json.dump({"about": "labs/emu/conformance/run.py's statuses; --update-baseline rewrites it",
                       "status": dict(sorted(statuses.items()))}, handle, indent=1)
            handle.write("\n")
    if new_passes and not args.update_baseline:
        print("now passing (not in the baseline; --update-baseline records them): " + ", ".join(new_passes))
    if regressions:
        print("regressions (passed in the baseline): " + ", ".join(regressions))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
