"""`make gradescope LAB=<lab> [SECRET_FILE=path]` -> build/gradescope/<lab>-autograder.zip.

The zip holds at its root what Gradescope's autograder specification asks for:
    setup.sh         run once, as root, when Gradescope builds the image: installs what grading
                     under the emulator needs (Ubuntu's packages; Python 3.11 or newer)
    run_autograder   run for every submission in /autograder: grades /autograder/submission
                     and writes /autograder/results/results.json, whatever happens
and next to them kit/ (the student edition of the kit), lms-lab.json (the lab's cases and
points) and, with SECRET_FILE, secret (then hidden cases are graded, shown after the due date,
and the zip must not be shared: it holds the secret).
LABKIT_AUTOGRADER_ROOT replaces /autograder (the tests run run_autograder on a plain machine).
"""

from __future__ import annotations

from pathlib import Path

from lms.bundle import Bundle, grade_and_seal
from lms.kit import CONFIG_NAME, KIT_ROOT, check_no_secret, lab_info, read_secret

OUT_DIR = KIT_ROOT / "build" / "gradescope"

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (from the zip made
# by `make gradescope LAB={lab}`). It installs what grading lab {lab} under the CPU emulator
# needs; nothing here runs a student's code.
set -euo pipefail
here="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends {packages}
# The kit needs Python 3.11 or newer: Ubuntu 22.04's python3 is 3.10, so take its python3.11.
python=python3
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  apt-get install -y -q --no-install-recommends python3.11
  python=python3.11
fi
command -v "$python" > "$here/labkit-python"
cd "$here/kit"
"$python" -c 'import grader, lms.runner' || {{
  echo "setup.sh: error: the kit in $here/kit does not import with $python; remake the zip with make gradescope LAB={lab}" >&2
  exit 1
}}
echo "setup.sh: ready to grade lab {lab} under the CPU emulator with $("$python" --version)"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission of lab {lab}. It grades /autograder/submission under
# the CPU emulator and writes /autograder/results/results.json; if the grading itself breaks,
# it still writes one (score 0, the reason), so Gradescope never reports "autograder failed".
# LABKIT_AUTOGRADER_ROOT replaces /autograder (for testing on a plain machine).
set -u
root="${{LABKIT_AUTOGRADER_ROOT:-/autograder}}"
bundle="$root/source"
results="$root/results/results.json"
python="$(cat "$bundle/labkit-python" 2>/dev/null || echo python3)"
{grade_and_seal}if ! "$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not (isinstance(r, dict) and isinstance(r.get("tests"), list)))' "$results" 2>/dev/null; then
  echo "run_autograder: lms.runner ended with status $status and no valid results.json; writing one that says so"
  cat > "$results" <<JSON
{{"score": 0.0, "visibility": "visible", "stdout_visibility": "hidden", "tests": [],
 "output": "The autograder failed, not your code: its runner ended with status $status before writing a result. Your instructor has the log; submit again later or ask them."}}
JSON
fi
exit 0
"""


def make(lab_id: str, *, secret_file: Path | None = None, out_dir: Path = OUT_DIR, log=print) -> Path:
    secret = read_secret(secret_file)
    info = lab_info(lab_id, with_hidden=secret is not None)
    bundle = Bundle()
    files = bundle.add_kit("kit", info.lab)
    check_no_secret(files, secret)
    bundle.add("setup.sh", SETUP_SH.format(lab=info.lab, packages=" ".join(info.packages)), executable=True)
    bundle.add("run_autograder", RUN_AUTOGRADER.format(lab=info.lab, grade_and_seal=grade_and_seal(
        "gradescope", "$root/submission", info.budget_s + 60)),
               executable=True)
    bundle.add(CONFIG_NAME, info.to_json())
    if secret is not None:
        bundle.add("secret", secret + b"\n")
    out = bundle.write_zip(out_dir / f"{info.lab}-autograder.zip")
    log(f"wrote {out}: {len(files)} kit files, {len(info.cases)} cases, {info.max_score:g} points"
        + (" (hidden cases graded: this zip holds the secret, do not share it)" if secret else ""))
    log(f"  Gradescope: upload it as the assignment's autograder; set the timeout to at least "
        f"{info.budget_s + 120} s (docs/lms.md)")
    return out
