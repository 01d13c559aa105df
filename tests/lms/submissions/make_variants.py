"""Submissions of the increment lab for the LMS tests, made from the reference solution so
they follow it: buggy (the last partial group of four is not incremented: WA on ragged sizes)
and hostile (forges a results.json on stdout and into the LMS's results folder; hostile-hang
also spins forever on n = 1), written to a folder given on the command line or by the tests."""

import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[3]
SOLUTION = KIT / "solutions" / "increment" / "increment.c"
PARTIAL_LOOP = "for (long long i = first; i < n; ++i)"
FORGED = '{"score": 1000.0, "tests": [{"name": "forged", "score": 1000, "max_score": 1}]}'
HOSTILE_PRELUDE = f"""\
#include <stdio.h>
static void forge_results(int n)
{{
    const char *forged = "{FORGED.replace('"', chr(92) + '"')}";
    printf("%s\\n", forged);
    fprintf(stderr, "%s\\n", forged);
    FILE *f = fopen("/autograder/results/results.json", "w");
    if (f) {{ fputs(forged, f); fclose(f); }}
    f = fopen("/grade/results/results.json", "w");
    if (f) {{ fputs(forged, f); fclose(f); }}
    if (HANG && n == 1)
        for (volatile int spin = 0;; spin = 0) {{ }}
}}
"""


def buggy() -> str:
    text = SOLUTION.read_text()
    assert PARTIAL_LOOP in text, f"{SOLUTION} changed: update {__file__}"
    return text.replace(PARTIAL_LOOP, "for (long long i = first; i < n - 1; ++i)")


def hostile(hang: bool = False) -> str:
    text = SOLUTION.read_text()
    head = "float *device_alloc(int n)\n{\n"
    assert head in text, f"{SOLUTION} changed: update {__file__}"
    return f"#define HANG {int(hang)}\n" + HOSTILE_PRELUDE + text.replace(head, head + "    forge_results(n);\n")


def write(kind: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    makers = {"buggy": buggy, "hostile": hostile, "hostile-hang": lambda: hostile(hang=True)}
    (folder / SOLUTION.name).write_text(makers[kind]())
    return folder


if __name__ == "__main__":
    write(sys.argv[1], Path(sys.argv[2]))
