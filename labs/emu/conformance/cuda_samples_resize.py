"""A cuda-samples (or HeCBench) program with smaller compile-time sizes, for the conformance run.

The tensor-core GEMM samples fix their matrix sizes with `#define M_TILES 512` and kin, sized
for a GPU: at those sizes the emulator needs from minutes (cudaTensorCoreGemm, 4096^3) to hours
(dmmaTensorCoreGemm, 8192 x 8192 x 4096: a billion warp-wide mma_sync calls) of CPU time. The
list (programs.json, "resize"; hecbench_args.json's for HeCBench) names the macros or constants
and the values the run uses; this module makes a copy of the program's folder with those
`#define` lines (or `const int NAME = value;` declarations) rewritten,
and the runner builds the copy. The checkout is never changed, and a macro the sources no longer
define stops the build with a message instead of running the program at its own size.
"""

import os
import re
import shutil

SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp")


def resized_copy(folder, destination, sizes):
    """Copies `folder` to `destination` with each `#define NAME value` (or `const T NAME = value`) of `sizes` (NAME -> new
    value) rewritten; returns the note the table shows ("M_TILES 512 -> 32, ..."). Raises
    ValueError when a name is defined nowhere in the folder's sources."""
    if os.path.isdir(destination):
        shutil.rmtree(destination)
    shutil.copytree(folder, destination)
    found = {}
    for entry in sorted(os.listdir(destination)):
        path = os.path.join(destination, entry)
        if not entry.endswith(SOURCE_SUFFIXES) or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
        for name, value in sizes.items():
            # `#define NAME value`, or a constant (HeCBench's aligned-types: `const int MEM_SIZE = 50000000;`)
            pattern = re.compile(r"^(\s*#\s*define\s+" + re.escape(name) + r"\s+|\s*(?:static\s+)?(?:const|constexpr)\s+"
                                 r"[\w:<> ]+?\s+" + re.escape(name) + r"\s*=\s*)([^\s;]+)(.*)$", re.M)
            match = pattern.search(text)
            if match:
                found.setdefault(name, match.group(2))
                text = pattern.sub(lambda m: m.group(1) + str(value) + m.group(3), text)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
    missing = [name for name in sizes if name not in found]
    if missing:
        raise ValueError(f"{', '.join(missing)}: not #defined in {folder}; the list's \"resize\" no longer "
                         "fits the checkout (update programs.json)")
    return "sizes " + ", ".join(f"{name} {found[name]} -> {value}" for name, value in sizes.items())
