"""A class graded as one Slurm array job on a real (one-node) cluster, under the emulator:
`python3 -m grader batch increment <folder> --scheduler slurm --emu` on six submissions,
correct, wrong, crashing, hanging, not compiling, and one whose task is cancelled (scancel)
while it runs. The class CSV gives each its verdict; a rerun grades only the cancelled one
(submitted with --no-wait, then collected by the next run, which waits for that job rather than
submitting it again); a last run grades nothing and submits nothing."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.batch import Plan
from grader.labs import load_lab
from grader.paths import KIT_ROOT
from grader.submit import package
from grader.testing import EMU_READY

pytestmark = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")

# One student file for lab increment, with a place to go wrong in the kernel (step) and in the
# host code (hook, run before the device allocation of every case).
SUBMISSION = r'''// {what}
#include <unistd.h>
#include "increment.h"

__global__ void increment_kernel(float *data, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += {step};
}}

float *device_alloc(int n)
{{
    float *device_data = NULL;
    {hook}
    CUDA_CHECK(cudaMalloc((void **)&device_data, (size_t)n * sizeof(float)));
    return device_data;
}}

void copy_to_device(float *device_dst, const float *host_src, int n)
{{
    CUDA_CHECK(cudaMemcpy(device_dst, host_src, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
}}

void launch_increment(float *device_data, int n, int block_size)
{{
    increment_kernel<<<(n + block_size - 1) / block_size, block_size>>>(device_data, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}}

void copy_to_host(float *host_dst, const float *device_src, int n)
{{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}}

void device_free(float *device_data)
{{
    CUDA_CHECK(cudaFree(device_data));
}}
'''
# student -> (step, hook, the verdict the class CSV must give)
STUDENTS = {
    "correct": ("1.0f", "", "AC"),
    "wrong": ("2.0f", "", "WA"),
    "crashing": ("1.0f", "*(volatile int *)0 = 1;  /* a write through a null pointer */", "RE"),
    "hanging": ("1.0f", "if (n == 1) for (;;) sleep(1);  /* case n1 never ends */", "TLE"),
    "not-compiling": ("1.0f", "this is not C;", "CE"),
    "cancelled": ("1.0f", "if (n == 1) sleep(12);  /* slow enough to be cancelled mid-run */", "AC"),
}
RUN_TIMEOUT_S = 300


def make_submissions(folder: Path) -> None:
    """Folders, and two tarballs made by `make submit`'s own packager."""
    lab = load_lab("increment")
    for student, (step, hook, _) in STUDENTS.items():
        source = folder.parent / "sources" / student / "increment"
        source.mkdir(parents=True)
        (source / "increment.c").write_text(SUBMISSION.format(what=student, step=step, hook=hook))
        if student in ("correct", "hanging"):
            package(lab, source, folder / f"{student}.tar.gz")
        else:
            source.parent.rename(folder / student)


def batch_argv(folder: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "grader", "batch", "increment", str(folder), "--scheduler", "slurm",
            "--emu", "--out", str(out), "--jobs", "6", "--poll-max", "2", "--progress-every", "5"]


def wait_until(condition, what: str, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"gave up after {timeout_s:g} s waiting for {what}")


def class_csv(out: Path) -> dict[str, dict]:
    return {row["student"]: row for row in csv.DictReader((out / "class.csv").open())}


def stamps(out: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()}


def test_a_class_as_a_slurm_array_job(slurm_cluster, tmp_path):
    folder, out = tmp_path / "submissions", tmp_path / "grades"
    folder.mkdir()
    make_submissions(folder)
    env = {**os.environ, **slurm_cluster.env}

    # First run: the cancelled one's task is cancelled while it grades.
    first = subprocess.Popen(batch_argv(folder, out), cwd=KIT_ROOT, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        job = wait_until(lambda: (out / "slurm-job.json").exists() and json.loads(
            (out / "slurm-job.json").read_text()), "the array job to be submitted", 120)
        plan = Plan.load(Path(job["plan"]))
        task = next(i for i, subs in enumerate(plan.tasks) if subs[0].student == "cancelled")
        log = out / "logs" / f"slurm-{job['job_id']}_{task}.out"
        wait_until(lambda: log.exists() and "== cancelled" in log.read_text(),
                   "the cancelled student's task to start grading", 180)
        cancel = slurm_cluster.command("scancel", f"{job['job_id']}_{task}")
        assert cancel.returncode == 0, cancel.stderr
        output, _ = first.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        if first.poll() is None:
            first.kill()
    # One submission is not graded; if not, the cancelled task's log says what it did.
    assert first.returncode == 1, f"{output}\n--- {log}:\n{log.read_text()}"
    rows = class_csv(out)
    assert sorted(rows) == sorted(STUDENTS)
    for student, (_, _, verdict) in STUDENTS.items():
        if student == "cancelled":
            assert rows[student]["status"] == "not graded", rows[student]
            assert "CANCELLED" in rows[student]["reason"], rows[student]["reason"]
        else:
            assert (rows[student]["status"], rows[student]["verdict"]) == ("graded", verdict), rows[student]
    assert rows["hanging"]["n1"] == "TLE" and rows["hanging"]["small"] == "AC"
    assert rows["correct"]["score"] == rows["correct"]["max_score"] == "100"
    assert "CANCELLED" in output and "1 not graded" in output
    before = stamps(out)

    # Second run: only the cancelled one is submitted again (--no-wait: submit and return) ...
    second = subprocess.run([*batch_argv(folder, out), "--no-wait"], cwd=KIT_ROOT, env=env, text=True,
                            capture_output=True, timeout=120)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 to grade, 5 already graded" in second.stdout and "1 array tasks" in second.stdout

    # ... and the third waits for that job rather than submitting it twice, and collects it.
    third = subprocess.run(batch_argv(folder, out), cwd=KIT_ROOT, env=env, text=True, capture_output=True,
                           timeout=RUN_TIMEOUT_S)
    assert third.returncode == 0, third.stdout + third.stderr
    assert "still in the queue: waiting for it" in third.stdout and "submitted" not in third.stdout
    after = stamps(out)
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {"cancelled.json"}
    rows = class_csv(out)
    assert (rows["cancelled"]["status"], rows["cancelled"]["verdict"]) == ("graded", "AC")

    # A fourth: nothing left, nothing submitted.
    job_file = (out / "slurm-job.json").read_text()
    fourth = subprocess.run(batch_argv(folder, out), cwd=KIT_ROOT, env=env, text=True, capture_output=True,
                            timeout=120)
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert "0 to grade, 6 already graded" in fourth.stdout and "submitted" not in fourth.stdout
    assert (out / "slurm-job.json").read_text() == job_file
    assert stamps(out) == after
    summary = json.loads((out / "class.json").read_text())
    assert summary["counts"] == {"graded": 6, "not graded": 0, "refused": 0, "total": 6}
