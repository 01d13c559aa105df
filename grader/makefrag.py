"""Per-lab build settings from each lab.toml's [build] table, as make variables: printed as the
Makefile fragment build/labs.mk (a plain `make`), or given on make's command line by the grader
(grader/build.py make_args), which has the lab loaded already.

    [build]
    nvccflags = "-Xcompiler -fopenmp"      # extra nvcc flags for the lab's files
    ldlibs = "-lcublas"                    # extra libraries for its programs
    emu_cxxflags = "-fopenmp"              # the same two under EMU=1
    emu_ldlibs = "-fopenmp"
"""

import sys

from grader.labs import ConfigError, Lab, load_lab

KEYS = ("nvccflags", "ldlibs", "emu_cxxflags", "emu_ldlibs")


def make_variables(lab: Lab) -> dict[str, str]:
    """LAB_<lab>_NVCCFLAGS and the rest, each "" where lab.toml leaves it out."""
    return {f"LAB_{lab.id}_{key.upper()}": lab.build.get(key, "") for key in KEYS}


def main(lab_ids: list[str]) -> int:
    for lab_id in lab_ids:
        try:
            lab = load_lab(lab_id)
        except ConfigError as e:
            # One lab's broken configuration must not stop the others from building.
            print(f"$(warning lab {lab_id} skipped: {e})")
            continue
        for name, value in make_variables(lab).items():
            print(f"{name} := {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
