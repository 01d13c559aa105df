#!/usr/bin/env python3
"""One tarball of what a conformance run on another machine needs from the suites' checkouts.

    python3 labs/emu/conformance/pack_sources.py --hecbench ~/HeCBench \\
        --cuda-samples ~/cuda-samples --output conformance-sources.tar.gz

The suites are not the kit's, so a machine that runs them (one with many cores, and perhaps no
network) gets them from this tarball: HeCBench's src/*-cuda programs with the sibling folders
their Makefiles and sources name (../include, ../urng-sycl/URNG_Input.bmp), and cuda-samples'
top-level CMake build with the programs of programs.json. Only what the suite's git holds is
packed, never a build's outputs: a git checkout's tracked files (`git ls-files`); in a folder
that is not one (an export), every file but objects, archives and executables. Sources and
build files are packed whatever their size, other files of up to 64 kB wherever they are; a
larger data file only where a program run reads it (its folder), and only up to --max-data-mb
a file and --max-folder-data-mb a folder, so that the tarball stays small enough to carry.
The tarball holds hecbench/ and cuda-samples/; device_run.sh unpacks it.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
# What a build reads: packed wherever it is in the suite (cuda-samples' top-level CMake build
# configures every sample's folder, so each folder's CMakeLists.txt and sources must be there).
BUILD_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc", ".c", ".cc", ".cpp", ".cxx",
                  ".cmake", ".mk", ".def")
BUILD_NAMES = ("CMakeLists.txt", "Makefile", "makefile", "GNUmakefile", "CMakePresets.json")
# Never data a program reads: documentation and pictures of results.
DOCUMENT_SUFFIXES = (".pdf", ".doc", ".docx", ".md", ".ppt", ".pptx")
# A file this small goes in wherever it is: a build may read one at configure time
# (cuda-samples' libNVVM samples copy their .ll files with CMake's file(COPY)).
SMALL_FILE_BYTES = 64_000
# A build's outputs, where the tree is not a git checkout: ELF executables and objects, ar archives.
BUILD_OUTPUT_MAGIC = (b"\x7fELF", b"!<arch>")


def is_build_file(path):
    name = os.path.basename(path)
    return name in BUILD_NAMES or name.endswith(BUILD_SUFFIXES)


def is_build_output(path):
    if path.endswith((".o", ".a", ".so", ".d")):
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(7).startswith(BUILD_OUTPUT_MAGIC)
    except OSError:
        return True


def suite_files(root):
    """The suite's files, relative to root: what git tracks in a checkout, else every regular
    file or link that is not a build's output."""
    if os.path.exists(os.path.join(root, ".git")):
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        return sorted(name for name in listed.decode(errors="surrogateescape").split("\0") if name)
    files = []
    for folder, folders, names in os.walk(root):
        folders[:] = [f for f in folders if f != ".git"]
        for name in names:
            path = os.path.join(folder, name)
            if not is_build_output(path):
                files.append(os.path.relpath(path, root))
    return sorted(files)


def wanted(relative, run_folders, root, max_data_bytes):
    """Whether a suite file goes in: a build file anywhere; no document (nor a doc/ folder's
    file); a small file anywhere; a data file of a folder a program runs in, not larger than
    max_data_bytes (a link counts as its target)."""
    if is_build_file(relative):
        return True
    if relative.endswith(DOCUMENT_SUFFIXES) or "/doc/" in relative:
        return False
    try:
        size = os.path.getsize(os.path.join(root, relative))
    except OSError:  # a link whose target is not there
        return False
    return size <= SMALL_FILE_BYTES or (size <= max_data_bytes and any(relative.startswith(f + "/") for f in run_folders))


SIBLING = re.compile(r"\.\./([\w.+-]+)")


def hecbench_run_folders(source):
    """HeCBench's src/*-cuda folders and the src/ folders they name (../include, ../data,
    ../urng-sycl), relative to src/."""
    folders = set()
    for program in sorted(glob.glob(os.path.join(source, "*-cuda"))):
        folders.add(os.path.basename(program))
        for path in glob.glob(os.path.join(program, "*")):
            if os.path.isfile(path) and (is_build_file(path) or os.path.basename(path) == "Makefile"):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    folders.update(name for name in SIBLING.findall(handle.read())
                                   if os.path.isdir(os.path.join(source, name)))
    return sorted(folders)


def cuda_samples_run_folders(root, programs_file):
    """The cuda-samples folders of programs.json (v13.4's cpp/ is older checkouts' Samples/),
    and Common/."""
    with open(programs_file, encoding="utf-8") as handle:
        programs = json.load(handle)["suites"]["cuda-samples"]["programs"]
    folders = ["Common"]
    for program in programs:
        folder = program["dir"]
        if not os.path.isdir(os.path.join(root, folder)) and folder.startswith("cpp/"):
            folder = "Samples/" + folder[len("cpp/"):]
        folders.append(folder)
    return folders


def folder_of(relative, run_folders):
    return next((f for f in run_folders if relative.startswith(f + "/")), None)


def add_suite(tar, root, prefix, run_folders, max_data_bytes, max_folder_data_bytes, only_under=None):
    """Adds the wanted files of one suite under prefix/; returns (files, bytes added, the run
    folders whose data was left out because together it passes max_folder_data_bytes: such
    a program then says its input is missing, as one whose data git does not hold). Build files
and small files always go in."""
    files = [r for r in suite_files(root) if (not only_under or any(r.startswith(u) for u in only_under))
             and wanted(r, run_folders, root, max_data_bytes) and os.path.exists(os.path.join(root, r))]
    def is_data(relative):  # what the folder limit counts and drops: build files and small files stay
        return not is_build_file(relative) and os.path.getsize(os.path.join(root, relative)) > SMALL_FILE_BYTES

    data_bytes = {}
    for relative in filter(is_data, files):
        folder = folder_of(relative, run_folders)
        data_bytes[folder] = data_bytes.get(folder, 0) + os.path.getsize(os.path.join(root, relative))
    too_much = sorted(f for f, size in data_bytes.items() if size > max_folder_data_bytes)
    count = total = 0
    for relative in files:
        if is_data(relative) and folder_of(relative, run_folders) in too_much:
            continue
        path = os.path.join(root, relative)
        tar.add(path, arcname=f"{prefix}/{relative}", recursive=False)
        count += 1
        total += os.path.getsize(path)
    return count, total, too_much


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hecbench", metavar="PATH", help="a checkout (or export) of zjin-lcf/HeCBench")
    parser.add_argument("--cuda-samples", metavar="PATH", help="a checkout of NVIDIA/cuda-samples")
    parser.add_argument("--programs", default=os.path.join(HERE, "programs.json"),
                        help="run.py's list, which names the cuda-samples run (default: programs.json here)")
    parser.add_argument("--max-data-mb", type=float, default=2.0,
                        help="the largest data file packed, in MB (default 2; sources have no limit)")
    parser.add_argument("--max-folder-data-mb", type=float, default=6.0,
                        help="the most data one program's folder may bring, in MB; a folder with more "
                             "brings none (default 6)")
    parser.add_argument("--output", required=True, metavar="FILE", help="the tarball to write (.tar.gz)")
    args = parser.parse_args(argv)
    if not args.hecbench and not args.cuda_samples:
        parser.error("give --hecbench PATH and/or --cuda-samples PATH")
    max_data_bytes, max_folder_data_bytes = int(args.max_data_mb * 1e6), int(args.max_folder_data_mb * 1e6)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    # dereference: HeCBench links data between its versions of a program (geodesic-cuda's
    # locations.txt is ../geodesic-sycl's); the tarball holds the file itself.
    with tarfile.open(args.output, "w:gz", dereference=True, compresslevel=9) as tar:
        if args.hecbench:
            root = os.path.abspath(args.hecbench)
            if not os.path.isdir(os.path.join(root, "src")):
                parser.error(f"--hecbench {root}: no src/ folder there (give a checkout of zjin-lcf/HeCBench)")
            folders = ["src/" + f for f in hecbench_run_folders(os.path.join(root, "src"))]
            count, size, left_out = add_suite(tar, root, "hecbench", folders, max_data_bytes, max_folder_data_bytes,
                                              only_under=[f + "/" for f in folders])
            print(f"HeCBench: {count} files, {size / 1e6:.1f} MB, from {len(folders)} folders of src/; "
                  f"data left out (over --max-folder-data-mb): {', '.join(left_out) or 'none'}")
        if args.cuda_samples:
            root = os.path.abspath(args.cuda_samples)
            if not os.path.isfile(os.path.join(root, "CMakeLists.txt")):
                parser.error(f"--cuda-samples {root}: no CMakeLists.txt there (give a checkout of NVIDIA/cuda-samples)")
            count, size, left_out = add_suite(tar, root, "cuda-samples", cuda_samples_run_folders(root, args.programs),
                                              max_data_bytes, max_folder_data_bytes)
            print(f"cuda-samples: {count} files, {size / 1e6:.1f} MB; data left out (over --max-folder-data-mb): "
                  f"{', '.join(left_out) or 'none'}")
    print(f"{args.output}: {os.path.getsize(args.output) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
