#!/usr/bin/env bash
# Issue 24's two hostile submissions (tests/hostile/walk_expected, forge_results) through the
# Gradescope bundle in every sandbox kind this machine can run (bubblewrap, the sandbox user,
# Landlock), each in a PID namespace of its own. `make test` runs the LMS containers' kind (user)
# only; this runs them all (about a minute and a half). Needs root for the user kind.
#     bash lms/scripts/attacks_every_kind.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
LABKIT_TEST_ALL_KINDS=1 exec python3 -m pytest -q tests/lms/test_lms_runner.py -k "attacks or forger or refuses or killed"
