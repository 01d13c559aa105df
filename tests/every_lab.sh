#!/usr/bin/env bash
# The checks that make test runs on one lab or a subset (to stay within CI's time), on every lab
# and whole; minutes a lab each on 2 cores. From the kit's root:   bash tests/every_lab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LABKIT_EVERY_LAB=1 python3 -m pytest -q tests/authoring/test_dist.py -k "student_edition" "$@"
# every reference solution under the emulator's checks (make test: without them, and two labs with)
LABKIT_EVERY_LAB=1 python3 -m pytest -q grader/tests/test_labs_emu.py -k "emulators_checks" "$@"
# every lab's untouched starter fails with reasons, under the checks (make test: increment's, matmul's)
LABKIT_EVERY_LAB=1 python3 -m pytest -q grader/tests/test_labs_emu.py -k "untouched_starter" "$@"
# the hostile corpus with the sandbox forced off, whole (make test grades the holes and the limits)
python3 tests/hostile/corpus.py --sandbox off
# every lab's handout walked through in the student edition (make test: lab 1's)
python3 tests/kit/student_walkthrough.py
# the hostile corpus whole in the sandbox kinds without namespaces (make test: what each confines its own way)
LABKIT_EVERY_LAB=1 python3 -m pytest -q tests/hostile/test_hostile.py -k "without_namespaces" "$@"
# the LMS bundle and the Classroom workflow building the emulator from nothing (make test: a built one copied in)
LABKIT_EVERY_LAB=1 python3 -m pytest -q tests/lms/test_lms_runner.py tests/lms/test_lms_classroom.py -k "reference_solution_nested or workflow_commands" "$@"
