"""Submissions for the LMS tests and lms/scripts/verify_bundles.sh, made from the kit's own files
so that they follow it, for any lab:

    python3 tests/lms/submissions/make_variants.py LAB KIND FOLDER

    solution      the reference solution
    unfinished    the starter files, TODOs and all (RE: the TODO not done)
    buggy         (increment only) the reference solution with the last partial group of four
                  left out: WA on sizes that are not a multiple of 4
    hostile       the reference solution, each program first forging a results.json on stdout,
                  on stderr and into Gradescope's and PrairieLearn's results folders
    hostile-hang  the same, and the first program run spins forever (a file in /tmp marks it,
                  so the later runs go on: one TLE, not one per case)
"""

import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[3]
FORGED = '{"score": 1000.0, "tests": [{"name": "forged", "score": 1000, "max_score": 1}]}'
HANG_MARKER = "/tmp/labkit-lms-hostile-hung"
HOSTILE_PRELUDE = """\
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void labkit_lms_forge_results(void)
{{
    const char *forged = "{forged}";
    printf("%s\\n", forged);
    fprintf(stderr, "%s\\n", forged);
    FILE *f = fopen("/autograder/results/results.json", "w");
    if (f) {{ fputs(forged, f); fclose(f); }}
    f = fopen("/grade/results/results.json", "w");
    if (f) {{ fputs(forged, f); fclose(f); }}
    if ({hang} && access("{marker}", F_OK) != 0) {{
        f = fopen("{marker}", "w");
        if (f) fclose(f);
        for (volatile int spin = 0;; spin = 0) {{ }}
    }}
}}
"""
PARTIAL_LOOP = "for (long long i = first; i < n; ++i)"


def sources(lab: str, tree: str) -> dict[str, str]:
    found = {p.name: p.read_text() for p in sorted((KIT / tree / lab).glob("*.c"))}
    if not found:
        raise SystemExit(f"make_variants: no {tree}/{lab}/*.c in {KIT}")
    return found


def variant(lab: str, kind: str) -> dict[str, str]:
    if kind == "solution":
        return sources(lab, "solutions")
    if kind == "unfinished":
        return sources(lab, "starter")
    if kind == "buggy":
        files = sources(lab, "solutions")
        changed = {n: t.replace(PARTIAL_LOOP, "for (long long i = first; i < n - 1; ++i)") for n, t in files.items()}
        if changed == files:
            raise SystemExit(f"make_variants: buggy is made for the increment lab's solution, not {lab}'s")
        return changed
    if kind in ("hostile", "hostile-hang"):
        prelude = HOSTILE_PRELUDE.format(forged=FORGED.replace('"', '\\"'), hang=int(kind == "hostile-hang"),
                                         marker=HANG_MARKER)
        return {n: prelude + t for n, t in sources(lab, "solutions").items()}
    raise SystemExit(f"make_variants: unknown kind {kind!r}: solution, unfinished, buggy, hostile, hostile-hang")


def write(lab: str, kind: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in variant(lab, kind).items():
        (folder / name).write_text(text)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit("usage: make_variants.py LAB KIND FOLDER")
    write(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
