#!/usr/bin/env python3
"""HeCBench's CUDA programs as a conformance suite of the emulator.

    python3 labs/emu/conformance/hecbench.py --hecbench ~/src/HeCBench --jobs 16 \\
        --json results.json --markdown table.md

builds every src/*-cuda program of a HeCBench checkout (zjin-lcf/HeCBench; the sources are not
the kit's, so the checkout is given by path) with its own Makefile and nvcc-emu as the compiler
(`make CC=nvcc-emu NVCC=nvcc-emu`), runs it with its Makefile's `run` arguments (or the smaller
ones hecbench_args.json gives, so that a run fits --timeout on one core: each program gets one CPU
thread, EMU_THREADS=1), and reads its own verdict (verdict.py). Where a program's sizes are fixed
in its source but its Makefile offers a smaller build (sosfil's DEBUG=yes), hecbench_args.json's
"make" names the Makefile variables to set, and the table shows them. With --shrink F, a program
that times out runs once more with its integer arguments of 32 or more divided by F (the
table shows the arguments of the run counted). Statuses:

    passed          exit status 0, printed PASS (or "Test passed", SUCCESS), no FAIL
    checks_nothing  no verdict (PASS, FAIL, ...) in any string of its sources, so it cannot say
                    whether its result is right (a checksum, timings only; not built)
    unverified      exit status 0, printed no verdict at all (the program checks nothing)
    failed          printed FAIL, or a nonzero exit status (a wrong result, as the program says)
    crashed         killed by a signal (a segfault, an abort)
    timeout         ran past --timeout (wall-clock seconds; with --clock cpu, seconds of CPU)
    build_failed    did not compile or link; `kind` groups why (a missing header, an
                    undeclared function or intrinsic, inline PTX, the rewriter, ...)
    needs_library   uses cuBLAS, cuFFT, cuRAND, cuSPARSE, cuSOLVER, NVRTC, NCCL, the driver API
                    or MPI, which the emulator does not offer (not built)
    needs_data      its run reads a file the checkout does not hold (HeCBench keeps large
                    inputs in DVC, outside git; not run), or its build stops at a missing file
                    and its folder, or a folder its Makefile names (-I../testSNAP-omp), has a
                    .dvc archive
    no_makefile     the program has no Makefile (not built)
    not_run         --deadline passed before its build started, or --end stopped its build or run
    runner_error    this script failed on the program (a bug of the runner; the detail says what)

"Runtime-API programs" are those that need none of the libraries. The summary's pass rate is
over the runtime-API programs that check their own result (not checks_nothing, not
unverified) and whose inputs are in git (not needs_data); it says how many each exclusion
took, and gives the rate with the needs_data ones counted as failures, and over all programs.
"""

import argparse
import glob
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from time_limit import add_time_arguments, describe, run_limited  # noqa: E402
from cuda_samples_resize import resized_copy  # noqa: E402
from verdict import FAILURE, SUCCESS, claims_success, failure_line  # noqa: E402

NVCC_EMU = os.path.join(os.path.dirname(HERE), "bin", "nvcc-emu")
ARGS_FILE = os.path.join(HERE, "hecbench_args.json")

# What marks a program as needing a CUDA library: a link flag or an #include of its header.
LIBRARIES = {
    "cuBLAS": r"-lcublas|#\s*include\s*[<\"](cublas|cublasLt)",
    "cuFFT": r"-lcufft|#\s*include\s*[<\"]cufft",
    "cuRAND": r"-lcurand|#\s*include\s*[<\"]curand",
    "cuSPARSE": r"-lcusparse|#\s*include\s*[<\"]cusparse",
    "cuSOLVER": r"-lcusolver|#\s*include\s*[<\"]cusolver",
    "NVRTC": r"-lnvrtc|#\s*include\s*[<\"]nvrtc",
    "cuDNN": r"-lcudnn|#\s*include\s*[<\"]cudnn",
    "driver API": r"-lcuda\b|#\s*include\s*[<\"]cuda\.h[>\"]",
    "NPP/nvJPEG": r"-lnpp|-lnvjpeg|#\s*include\s*[<\"](npp|nvjpeg)",
    "NCCL": r"-lnccl|#\s*include\s*[<\"]nccl",
    # Not CUDA, but a library the emulator does not offer either: several processes.
    "MPI": r"-lmpi|#\s*include\s*[<\"]mpi\.h",
}
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".cc", ".inc")


def program_files(folder):
    files = [os.path.join(folder, "Makefile")]
    for root, _, names in os.walk(folder):
        files += [os.path.join(root, n) for n in names if n.endswith(SOURCE_SUFFIXES)]
    return files


def needed_libraries(folder):
    """The CUDA libraries (LIBRARIES' names) the program's Makefile or sources use."""
    text = ""
    for path in program_files(folder):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text += handle.read() + "\n"
        except OSError:
            pass
    # The driver API's cuda.h is also the runtime's companion: count it only with -lcuda.
    found = [name for name, pattern in LIBRARIES.items() if re.search(pattern, text)]
    if "driver API" in found and not re.search(r"-lcuda\b", text):
        found.remove("driver API")
    return found


STRING_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def _text(path):
    """A source file's text, or "" where it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _sources_with_includes(folder):
    """The program's files, and the files its quoted includes reach outside its folder
    (HeCBench's ../include/*.h, ../openmp-omp/reference.h), one level deep."""
    files = program_files(folder)
    for path in list(files):
        for name in QUOTED_INCLUDE.findall(_text(path)):
            included = os.path.normpath(os.path.join(os.path.dirname(path), name))
            if not included.startswith(folder + os.sep) and os.path.isfile(included):
                files.append(included)
    return files


def prints_a_verdict(folder):
    """Whether some string in the program's sources is a verdict verdict.py reads (PASS,
    FAIL, "Test passed", ...): a program without one checks nothing it can tell."""
    for path in _sources_with_includes(folder):
        text = _text(path)
        if any(SUCCESS.search(literal) or FAILURE.search(literal) for literal in STRING_LITERAL.findall(text)):
            return True
    return False


def dvc_archives(folder):
    """The .dvc files (data kept outside git) of the program's folder and of the folders its
    Makefile names by a relative path (testSNAP-cuda's headers are packed in ../testSNAP-omp)."""
    folders = [folder]
    try:
        with open(os.path.join(folder, "Makefile"), encoding="utf-8", errors="replace") as handle:
            folders += [os.path.join(folder, name) for name in re.findall(r"(\.\./[\w.+-]+)", handle.read())]
    except OSError:
        pass
    return [path for f in folders if os.path.isdir(f) for path in sorted(glob.glob(os.path.join(f, "*.dvc")))]


def build_error_kind(log):
    """A failed build's kind, for grouping: what is missing, or what the emulator refused."""
    checks = [
        (r"fatal error: ((?:thrust|cub|cuda/std|cuda)/[\w/.]+): No such file", lambda m: "thrust/CUB/libcu++ headers"),
        (r"fatal error: ([\w/.+-]+): No such file", lambda m: f"missing header {m.group(1)}"),
        # A prerequisite of a pattern rule is missing, so make has no rule for the object.
        (r"No rule to make target '([^']+)', needed by", lambda m: f"no rule to make {m.group(1)}"),
        (r"\b(\w+\.h): .* is not emulated", lambda m: f"not emulated: {m.group(1)}"),
        (r"inline PTX assembly", lambda m: "inline PTX (asm)"),
        (r"the emulator's rewriter", lambda m: "rewriter gap"),
        (r"‘(\w+)’ was not declared in this scope", lambda m: f"undeclared {m.group(1)}"),
        (r"‘(\w+)’ is not a member of ‘(\w+)’", lambda m: f"undeclared {m.group(2)}::{m.group(1)}"),
        (r"no matching function for call to ‘([\w:]+)", lambda m: f"no overload {m.group(1)}"),
        (r"undefined reference to `([\w:]+)", lambda m: f"undefined {m.group(1)}"),
        (r"nvcc-emu: error: (.*)", lambda m: "nvcc-emu: " + m.group(1)[:60]),
    ]
    for pattern, label in checks:
        match = re.search(pattern, log)
        if match:
            return label(match)
    return "other compile error"


def first_error(log):
    for pattern in (r"^.*\berror\b.*$", r"^.*undefined reference.*$"):
        match = re.search(pattern, log, re.M)
        if match:
            return match.group(0).strip()[:200]
    lines = [line for line in log.splitlines() if line.strip()]
    return lines[-1].strip()[:200] if lines else ""


def make_variables(compiler):
    """The Makefile variables that name the CUDA compiler (CC in most of HeCBench, NVCC in a
    few) and the launcher, set on make's command line."""
    return [f"CC={compiler}", f"NVCC={compiler}", "ARCH=sm_90", "LAUNCHER="]


def run_command(folder, compiler, overrides, name):
    """(The program's run command, the Makefile's arguments where hecbench_args.json gives
    others, else None): the Makefile's `run` recipe (make -n), with hecbench_args.json's
    arguments instead where it names the program."""
    result = run_limited(["make", "-n", "-s", "run"] + make_variables(compiler), folder, MAKE_N_LIMIT)
    recipe = re.sub(r"\\\n\s*", " ", result.output)  # a command continued over lines (bitcracker's) is one
    lines = [line.strip() for line in recipe.splitlines() if re.match(r"\s*(\S*/)?\./", line)]
    if not lines:
        return None, None
    command = shlex.split(lines[-1])
    if name in overrides:
        return command[:1] + list(overrides[name]), " ".join(command[1:])
    return command, None


# The largest power of two a shrunk argument keeps dividing it by, where the original was divisible.
KEPT_ALIGNMENT = 256  # a block of threads, as programs size them


def shrunk_size(value, factor):
    """value // factor, rounded down to a multiple of the powers of two (up to KEPT_ALIGNMENT)
    that divide value, and not below the largest of them: a program that launches value / 64
    blocks of 64 threads with no bounds check for a partial block (adamw's 1000000 elements)
    must not get 62500, nor one that wants a multiple of 32 (metropolis' lattice of 32) get 2."""
    alignment = min(value & -value, KEPT_ALIGNMENT)
    return max(alignment, value // factor // alignment * alignment)


def shrunk(command, factor):
    """The command with every integer argument of 32 or more divided by `factor` (at least 1,
    keeping its powers of two: shrunk_size): HeCBench's arguments are mostly sizes and repeat
    counts chosen for a GPU."""
    arguments = [str(shrunk_size(int(a), factor)) if re.fullmatch(r"\d+", a) and int(a) >= 32 else a for a in command[1:]]
    return command[:1] + arguments


def _candidate_inputs(argument):
    """The argument itself, or, where it is a script of several words (logic-rewrite's
    "read ./x.aig; resyn2; write y.aig"), its words that are paths, not the names it writes."""
    words = argument.split()
    return [argument] if len(words) <= 1 else [word.rstrip(";") for word in words if "/" in word]


def missing_inputs(folder, command):
    """Arguments that look like input files (a path, or a name with a file suffix such as
    .txt or cc's .egr, not a number such as 0.5; not a name with "out" or "result", which the
    program writes) and are absent."""
    missing = []
    for argument in (word for a in command[1:] for word in _candidate_inputs(a)):
        if re.search(r"out|result", os.path.basename(argument), re.I):
            continue
        if "/" in argument or re.search(r"\w\.[A-Za-z]\w{0,5}$", argument):
            if not os.path.exists(os.path.join(folder, argument)):
                missing.append(argument)
    return missing


def run_once(command, folder, timeout, clock="wall", end=None):
    """(time_limit.Run, seconds) of one run on one CPU thread; `clock` says what `timeout`
    counts (time_limit.py)."""
    run = run_limited(command, folder, timeout, clock, env=dict(os.environ, EMU_THREADS="1"), end=end)
    return run, round(run.wall_s, 1)


# Wall seconds a program's build (make) may take: a build that hangs must not hold a runner's thread.
BUILD_LIMIT = 300
MAKE_N_LIMIT = 60  # make -n run, make clean: no compiler runs, a hang is the Makefile's


def evaluate(folder, compiler, overrides, timeout, deadline, shrink=0, build_options=None, clock="wall", end=None,
             resizes=None):
    """One program's result; `build_options` maps a program to the variables of its own Makefile
    it is built with (hecbench_args.json's "make"), `resizes` to the compile-time sizes it is
    built with from a copy of its folder beside it (hecbench_args.json's "resize"). No build
    starts after `deadline`; a build or run still going at `end` (both time.monotonic() values)
    is stopped, and the program is not_run."""
    name = os.path.basename(folder)
    own_options = list((build_options or {}).get(name, []))
    result = {"program": name, "libraries": needed_libraries(folder)}
    if not os.path.exists(os.path.join(folder, "Makefile")):
        return dict(result, status="no_makefile", detail="no Makefile (CMake only)")
    if result["libraries"]:
        return dict(result, status="needs_library", detail="uses " + ", ".join(result["libraries"]))
    command, makefiles = run_command(folder, compiler, overrides, name)
    result["args"] = " ".join(command[1:]) if command else ""
    if makefiles is not None:
        result["args"] += f" (hecbench_args.json; Makefile's {makefiles})"
    if own_options:
        result["args"] += f" (built with make {' '.join(own_options)}: hecbench_args.json)"
    if command and missing_inputs(folder, command):
        return dict(result, status="needs_data", detail="not in the checkout: " + ", ".join(missing_inputs(folder, command)))
    if not prints_a_verdict(folder):
        return dict(result, status="checks_nothing", detail="no PASS, FAIL or other verdict in its sources")
    # Past the deadline a program is still classified (above: instant, no build), not built.
    if time.monotonic() > deadline:
        return dict(result, status="not_run", detail="the run's --deadline passed before its build")
    if name in (resizes or {}):
        # Beside the original, so that its Makefile's ../include still leads where it did; the
        # name no longer ends in -cuda, so no run takes the copy for a program.
        try:
            note = resized_copy(folder, folder + ".resized", resizes[name])
        except ValueError as error:
            return dict(result, status="runner_error", detail=str(error)[:200])
        folder = folder + ".resized"
        result["args"] += f" (built with {note}: hecbench_args.json)"
    start = time.monotonic()
    run_limited(["make", "clean"], folder, MAKE_N_LIMIT, end=end)
    built = run_limited(["make"] + make_variables(compiler) + own_options, folder, BUILD_LIMIT, end=end)
    result["build_s"] = round(time.monotonic() - start, 1)
    if built.stopped == "end":
        return dict(result, status="not_run", detail="its build was cut short: the run's --end came first")
    log = built.output.replace(folder + os.sep, "")
    if built.stopped:
        return dict(result, status="build_failed", kind="build timeout", detail=f"make ran past {BUILD_LIMIT} s")
    if built.returncode != 0:
        kept_in_dvc = dvc_archives(folder)
        if kept_in_dvc and re.search(r"No rule to make target|fatal error: .*: No such file", log):
            # Sources of the build (sad's bitmap_image.hpp) packed with its data, outside git.
            archive = os.path.relpath(kept_in_dvc[0], folder)
            return dict(result, status="needs_data", detail=f"its build needs files kept in DVC "
                        f"({archive}): {first_error(log)}"[:200])
        return dict(result, status="build_failed", kind=build_error_kind(log), detail=first_error(log))
    if not command:
        return dict(result, status="build_failed", kind="no run target", detail="make -n run names no ./program")
    run, seconds = run_once(command, folder, timeout, clock, end)
    if run.stopped == "limit" and shrink and shrunk(command, shrink) != command:
        first, command = command, shrunk(command, shrink)  # once more, smaller; the table shows these arguments
        given = "hecbench_args.json's" if makefiles is not None else "Makefile's"
        result["args"] = " ".join(command[1:]) + f" ({given} {' '.join(first[1:])} / {shrink})"
        run, seconds = run_once(command, folder, timeout, clock, end)
    result["run_s"] = seconds
    if run.stopped == "end":
        return dict(result, status="not_run", detail="its run was cut short: the run's --end came first")
    if run.stopped:
        return dict(result, status="timeout", detail=f"no exit after {describe(timeout, clock)}")
    text, returncode = run.output, run.returncode
    said_failed = failure_line(text)
    if returncode < 0:
        detail = next((line for line in text.splitlines() if line.startswith("cuda-emu:")), "")
        return dict(result, status="crashed",
                    detail=(detail or f"killed by signal {signal.Signals(-returncode).name}")[:200])
    if said_failed or returncode != 0:
        if re.search(r"No such file|[Cc]annot open|[Uu]nable to open|[Ee]rror opening|[Ff]ailed to open|"
                     r"[Cc]ould not (?:find|open|read)", text):
            return dict(result, status="needs_data", detail=first_error(text))
        detail = said_failed or first_error(text) or f"exit status {returncode}"
        return dict(result, status="failed", detail=detail[:200])
    if not claims_success(text):
        return dict(result, status="unverified", detail="ran to completion; printed no PASS or FAIL")
    return dict(result, status="passed", detail="")


GOOD = ("passed",)
# Not in the denominator of the pass rate: programs that cannot say whether they are right,
# and programs whose inputs are not in git (HeCBench keeps them in DVC).
CHECK_NOTHING = ("checks_nothing", "unverified")
NO_INPUTS = ("needs_data",)
# Nor programs the run did not get to: they say nothing about the emulator.
NOT_RUN = ("not_run",)


def _count(rows, statuses):
    return sum(r["status"] in statuses for r in rows)


def _rate(passed, total):
    return f"{passed} of {total} ({100.0 * passed / max(1, total):.1f}%)"


def summary(results, date, snapshot):
    """The pass rates, what each leaves out (counted), and the failures by status and kind,
    in Markdown."""
    everything = list(results.values())
    runtime_api = [r for r in everything if not r["libraries"]]
    passed = _count(runtime_api, GOOD)
    no_check_static = _count(runtime_api, ("checks_nothing",))
    no_check_run = _count(runtime_api, ("unverified",))
    no_inputs = _count(runtime_api, NO_INPUTS)
    not_run = _count(runtime_api, NOT_RUN)
    checked = len(runtime_api) - no_check_static - no_check_run - no_inputs - not_run
    lines = [f"HeCBench at {snapshot}, run {date}, {len(everything)} programs: "
             f"{len(everything) - len(runtime_api)} use a library the emulator does not offer ({', '.join(LIBRARIES)}; "
             f"not built), {len(runtime_api)} only the runtime API. Of those, "
             f"{no_check_static + no_check_run} check nothing ({no_check_static} with no verdict in their sources, "
             f"{no_check_run} that ran to completion and printed none) and {no_inputs} need inputs kept outside git "
             f"(DVC); neither is in the denominator" + (f", nor are the {not_run} the run's --deadline or --end left "
             f"unfinished" if not_run else "") + f". **{_rate(passed, checked)} of the runtime-API programs that "
             f"check their own result and have their inputs pass**; "
             f"{_rate(passed, checked + no_inputs)} with those that need inputs counted as failures; "
             f"{_rate(_count(everything, GOOD), len(everything))} of all programs.",
             "", "| status | programs |", "|---|---|"]
    counts = {}
    for r in everything:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    lines += [f"| {status} | {n} |" for status, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    kinds = {}
    for r in everything:
        if r["status"] == "build_failed":
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    if kinds:
        lines += ["", "| build failure kind | programs |", "|---|---|"]
        lines += [f"| {kind} | {n} |" for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0]))]
    return "\n".join(lines)


def table(results):
    lines = ["| program | status | kind / first error | arguments | build s | run s |", "|---|---|---|---|---|---|"]
    for name in sorted(results):
        r = results[name]
        detail = ((r.get("kind", "") + ": ") if r.get("kind") else "") + r.get("detail", "")
        detail = detail.replace("|", "\\|")
        lines.append(f"| {name} | {r['status']} | {detail} | {r.get('args', '').replace('|', '')} | "
                     f"{r.get('build_s', '')} | {r.get('run_s', '')} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hecbench", required=True, metavar="PATH", help="a checkout of zjin-lcf/HeCBench")
    parser.add_argument("--filter", default="*-cuda", help="glob of the src/ folders to run (default *-cuda)")
    parser.add_argument("--sample", type=int, default=0,
                        help="run N programs drawn at random (with --seed) instead of all of them")
    parser.add_argument("--seed", type=int, default=1, help="the --sample's random seed (default 1)")
    add_time_arguments(parser, timeout=60)
    parser.add_argument("--shrink", type=int, default=0, metavar="F",
                        help="run a program that times out once more with its integer arguments of 32 "
                             "or more divided by F (default: no second run)")
    parser.add_argument("--jobs", type=int, default=1, help="programs built and run at once (default 1)")
    parser.add_argument("--compiler", default=NVCC_EMU, help="the drop-in compiler (default: nvcc-emu)")
    parser.add_argument("--args", default=ARGS_FILE, metavar="FILE",
                        help="the programs' smaller run arguments (default: hecbench_args.json beside this script)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--log", metavar="FILE", help="append each result as a JSON line as it comes")
    parser.add_argument("--markdown", metavar="FILE", help="write the summary and the table as Markdown")
    parser.add_argument("--snapshot", metavar="COMMIT",
                        help="the HeCBench commit the checkout holds, where it is an export rather than a git "
                             "clone (default: the clone's HEAD)")
    args = parser.parse_args(argv)

    source = os.path.join(os.path.abspath(args.hecbench), "src")
    if not os.path.isdir(source):
        parser.error(f"--hecbench {args.hecbench}: no src/ folder there (give a checkout of zjin-lcf/HeCBench)")
    folders = sorted(path for path in glob.glob(os.path.join(source, args.filter)) if os.path.isdir(path))
    if args.sample:
        folders = sorted(random.Random(args.seed).sample(folders, min(args.sample, len(folders))))
    with open(args.args, encoding="utf-8") as handle:
        given = json.load(handle)
    overrides, build_options, resizes = given["args"], given.get("make", {}), given.get("resize", {})
    started = time.monotonic()
    deadline = started + args.deadline if args.deadline else float("inf")
    end = started + args.end if args.end else None
    compiler = os.path.abspath(args.compiler)

    def evaluate_and_print(folder):
        try:
            r = evaluate(folder, compiler, overrides, args.timeout, deadline, args.shrink, build_options, args.clock, end,
                         resizes)
        except Exception as error:  # one program's surprise must not lose the others' results
            r = {"program": os.path.basename(folder), "libraries": [], "status": "runner_error",
                 "detail": f"hecbench.py failed on it: {type(error).__name__}: {error}"[:200]}
        print(f"{r['program']:32} {r['status']:14} {(r.get('kind', '') + ' ' + r.get('detail', ''))[:110]}", flush=True)
        if args.log:
            with open(args.log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(r) + "\n")
        return r["program"], r

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = dict(pool.map(evaluate_and_print, folders))
    snapshot = args.snapshot or subprocess.run(["git", "-C", args.hecbench, "rev-parse", "--short=12", "HEAD"],
                                               capture_output=True, text=True).stdout.strip() or "an unknown commit"
    text = summary(results, time.strftime("%Y-%m-%d"), snapshot)
    print()
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1, sort_keys=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(text + "\n\n" + table(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
