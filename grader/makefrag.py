"""Prints the Makefile fragment of per-lab build settings from each lab.toml's [build] table.

    [build]
    nvccflags = "-Xcompiler -fopenmp"      # extra nvcc flags for the lab's files
    ldlibs = "-lcublas"                    # extra libraries for its programs
    emu_cxxflags = "-fopenmp"              # the same two under EMU=1
    emu_ldlibs = "-fopenmp"
"""

import sys

from grader.labs import ConfigError, load_lab

KEYS = ("nvccflags", "ldlibs", "emu_cxxflags", "emu_ldlibs")


def main(lab_ids: list[str]) -> int:
    for lab_id in lab_ids:
        try:
            build = load_lab(lab_id).build
        except ConfigError as e:
            # One lab's broken configuration must not stop the others from building.
            print(f"$(warning lab {lab_id} skipped: {e})")
            continue
        for key in KEYS:
            print(f"LAB_{lab_id}_{key.upper()} := {build.get(key, '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
