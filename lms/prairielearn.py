"""`make prairielearn LAB=<lab> [SECRET_FILE=path] [IMAGE=name]` -> build/prairielearn/<lab>/
(and the same as build/prairielearn/<lab>-prairielearn.zip).

PrairieLearn's external grader runs a Docker image with the job's files under /grade:
/grade/tests (the question's tests/ folder), /grade/student (the student's files), and reads
/grade/results/results.json. The bundle holds:
    questions/labkit-<lab>/info.json      the question, graded externally with IMAGE
    questions/labkit-<lab>/question.html  a file upload for the lab's .c files, and the results
    questions/labkit-<lab>/tests/         run (the grading script), lms-lab.json, kit/, [secret]
    image/Dockerfile                      the grading image: the emulator's packages and the
                                          entrypoint /usr/local/bin/labkit-grade (-> tests/run)
LABKIT_GRADE_ROOT replaces /grade (the tests run tests/run on a plain machine).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from lms.bundle import Bundle, grade_and_seal
from lms.kit import CONFIG_NAME, KIT_ROOT, LabInfo, check_no_secret, lab_info, read_secret

OUT_DIR = KIT_ROOT / "build" / "prairielearn"
DEFAULT_IMAGE = "labkit/emu-grader"
TOPIC = "CUDA labs"
ENTRYPOINT = "/usr/local/bin/labkit-grade"
UUID_NAMESPACE = uuid.UUID("6f1c1d52-8f3e-4a53-9a4e-2b1d3c0e5a77")  # the kit's: the same lab, the same uuid

RUN = """\
#!/usr/bin/env bash
# PrairieLearn's external grader runs this (through {entrypoint}) for every submission of lab
# {lab}: grades /grade/student under the CPU emulator and writes /grade/results/results.json; if
# the grading itself breaks, it still writes one ("gradable": false and the reason).
# LABKIT_GRADE_ROOT replaces /grade (for testing on a plain machine).
set -u
root="${{LABKIT_GRADE_ROOT:-/grade}}"
bundle="$root/tests"
results="$root/results/results.json"
python="${{LABKIT_PYTHON:-python3}}"
{grade_and_seal}if ! "$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not (isinstance(r, dict) and "gradable" in r))' "$results" 2>/dev/null; then
  echo "run: lms.runner ended with status $status and no valid results.json; writing one that says so"
  cat > "$results" <<JSON
{{"gradable": false, "score": 0.0, "tests": [],
 "message": "The autograder failed, not your code: its runner ended with status $status before writing a result. Your instructor has the log; submit again later or ask them."}}
JSON
fi
exit 0
"""

DOCKERFILE = """\
# The image PrairieLearn's external grader runs for the kit's labs (any lab: the lab's files come
# with the question, in /grade/tests). Build and push it where your PrairieLearn can pull it:
#   docker build -t {image} . && docker push {image}
FROM ubuntu:24.04
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q && apt-get install -y -q --no-install-recommends {packages} \\
    && rm -rf /var/lib/apt/lists/*
RUN printf '#!/bin/sh\\nexec bash /grade/tests/run "$@"\\n' > {entrypoint} && chmod 755 {entrypoint}
"""


def question_html(info: LabInfo) -> str:
    names = ", ".join(f"{p}.c" for p in info.programs)
    return f"""\
<pl-question-panel>
  <p>{info.title} (lab <code>{info.lab}</code>): upload your {names} from <code>starter/{info.lab}/</code>.</p>
  <p>Your code is built and run under the kit's CPU emulator, on every public testcase of the lab
  ({info.max_score:g} points in all). This grader has no GPU: it grades correctness only; timing is
  graded on the course's GPU cluster. Check your work first with
  <code>make check LAB={info.lab} EMU=1</code>.</p>
</pl-question-panel>

<pl-file-upload file-names="{",".join(f"{p}.c" for p in info.programs)}"></pl-file-upload>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def info_json(info: LabInfo, image: str) -> str:
    question = {
        "uuid": str(uuid.uuid5(UUID_NAMESPACE, f"labkit/{info.lab}")),
        "title": info.title,
        "topic": TOPIC,  # PrairieLearn wants it among infoCourse.json's topics
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": ENTRYPOINT,
            "timeout": info.budget_s + 120,
        },
    }
    return json.dumps(question, indent=2) + "\n"


def make(lab_id: str, *, secret_file: Path | None = None, image: str = DEFAULT_IMAGE,
         out_dir: Path = OUT_DIR, log=print) -> Path:
    secret = read_secret(secret_file)
    info = lab_info(lab_id, with_hidden=secret is not None)
    question = f"questions/labkit-{info.lab}"
    bundle = Bundle()
    files = bundle.add_kit(f"{question}/tests/kit", info.lab)
    check_no_secret(files, secret)
    bundle.add(f"{question}/info.json", info_json(info, image))
    bundle.add(f"{question}/question.html", question_html(info))
    bundle.add(f"{question}/tests/run", RUN.format(lab=info.lab, entrypoint=ENTRYPOINT,
                                                   grade_and_seal=grade_and_seal("prairielearn", "$root/student",
                                                                                 info.budget_s + 60)), executable=True)
    bundle.add(f"{question}/tests/{CONFIG_NAME}", info.to_json())
    if secret is not None:
        bundle.add(f"{question}/tests/secret", secret + b"\n")
    bundle.add("image/Dockerfile", DOCKERFILE.format(image=image, packages=" ".join(info.packages),
                                                     entrypoint=ENTRYPOINT))
    folder = bundle.write_folder(out_dir / info.lab)
    archive = bundle.write_zip(out_dir / f"{info.lab}-prairielearn.zip")
    log(f"wrote {folder}/ and {archive}: {len(files)} kit files, {len(info.cases)} cases, "
        f"{info.max_score:g} points, image {image}"
        + (" (hidden cases graded: the bundle holds the secret, do not share it)" if secret else ""))
    log(f"  PrairieLearn: build and push image/Dockerfile as {image}; copy {question}/ into your "
        f"course's questions/ (docs/lms.md)")
    return folder
