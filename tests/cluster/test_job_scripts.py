"""The job scripts in jobs/: valid bash, every scheduler directive one its scheduler knows (with
the right kind of value), no directive after the first command (a scheduler ignores those),
two lines for a student to edit; and, where the test cluster is up, sbatch's own --test-only
on each Slurm script as it is written, and one real `make check` job (under the emulator)."""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from grader.paths import KIT_ROOT
from grader.testing import EMU_READY

JOBS = KIT_ROOT / "jobs"
PREFIX = {"slurm": "#SBATCH", "sge": "#$", "pbs": "#PBS"}

# sbatch(1) options (Slurm 22.05 and later), long and short forms.
SBATCH = {"--account", "-A", "--array", "-a", "--begin", "-b", "--chdir", "-D", "--constraint", "-C",
          "--cpus-per-task", "-c", "--cpus-per-gpu", "--error", "-e", "--exclusive", "--export",
          "--gres", "--gpus", "-G", "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket", "--hold",
          "-H", "--job-name", "-J", "--mail-type", "--mail-user", "--mem", "--mem-per-cpu", "--mem-per-gpu",
          "--nodes", "-N", "--ntasks", "-n", "--ntasks-per-node", "--output", "-o", "--partition", "-p",
          "--qos", "-q", "--requeue", "--no-requeue", "--reservation", "--signal", "--time", "-t",
          "--time-min", "--tmp", "--wait", "-W", "--wckey", "--nodelist", "-w", "--exclude", "-x"}
# qsub(1) options of Grid Engine (SGE 6.2, Son of Grid Engine 8.1, Altair/Univa Grid Engine).
SGE_QSUB = {"-a", "-ac", "-ar", "-A", "-b", "-binding", "-c", "-ckpt", "-clear", "-cwd", "-C", "-dc", "-dl",
            "-e", "-hard", "-h", "-hold_jid", "-hold_jid_ad", "-i", "-j", "-js", "-jsv", "-l", "-m",
            "-masterq", "-M", "-notify", "-now", "-N", "-o", "-P", "-p", "-pe", "-q", "-R", "-r", "-sc",
            "-shell", "-soft", "-sync", "-S", "-t", "-tc", "-terse", "-v", "-V", "-w", "-wd"}
SGE_NO_VALUE = {"-cwd", "-V", "-clear", "-hard", "-soft", "-h", "-notify", "-terse"}
# qsub(1B) options of OpenPBS / PBS Professional (and Torque's common subset).
PBS_QSUB = {"-a", "-A", "-c", "-C", "-e", "-f", "-h", "-I", "-j", "-J", "-k", "-l", "-m", "-M", "-N",
            "-o", "-p", "-P", "-q", "-r", "-R", "-S", "-u", "-v", "-V", "-W", "-X", "-z"}
PBS_NO_VALUE = {"-f", "-h", "-I", "-V", "-X", "-z"}
PBS_RESOURCES = {"select", "walltime", "place", "nodes", "ppn", "gpus", "ncpus", "ngpus", "mem", "mpiprocs",
                 "ompthreads", "host", "vnode", "cput", "pmem", "vmem"}
HMS = re.compile(r"\d+:\d\d:\d\d")


def scripts(scheduler: str | None = None) -> list[Path]:
    folders = [JOBS / scheduler] if scheduler else [JOBS / s for s in PREFIX]
    return sorted(p for folder in folders for p in folder.iterdir() if p.is_file())


def directives(script: Path) -> list[tuple[int, list[str]]]:
    """(line number, words) of each directive, and of each one commented out with one more '#'
    (the scripts say: delete one '#' to use it), which must be just as valid."""
    prefix = PREFIX[script.parent.name]
    found = []
    for number, line in enumerate(script.read_text().splitlines(), start=1):
        text = line[1:] if line.startswith("#" + prefix) else line
        if text.startswith(prefix + " "):
            words = shlex.split(text[len(prefix):], comments=script.parent.name == "slurm")
            found.append((number, words))
    return found


def test_every_scheduler_has_its_scripts():
    names = {p.relative_to(JOBS).as_posix() for p in scripts()}
    assert {"slurm/run-lab.sbatch", "slurm/check-lab.sbatch", "slurm/grade-batch.sbatch",
            "sge/run-lab.sh", "sge/check-lab.sh", "pbs/run-lab.pbs", "pbs/check-lab.pbs"} <= names


@pytest.mark.parametrize("script", scripts(), ids=lambda p: p.relative_to(JOBS).as_posix())
def test_script_is_valid_bash(script):
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("script", scripts(), ids=lambda p: p.relative_to(JOBS).as_posix())
def test_no_directive_after_the_first_command(script):
    prefix = PREFIX[script.parent.name]
    lines = script.read_text().splitlines()
    first_command = next(i for i, line in enumerate(lines[1:], start=1)
                         if line.strip() and not line.lstrip().startswith("#"))
    late = [i + 1 for i, line in enumerate(lines) if i > first_command and line.startswith(prefix)]
    assert not late, f"directives after the first command are ignored by the scheduler: lines {late}"


@pytest.mark.parametrize("script", scripts(), ids=lambda p: p.relative_to(JOBS).as_posix())
def test_a_student_edits_two_lines(script):
    text = script.read_text()
    marked = [line for line in text.splitlines() if re.match(r"^[A-Z_]+=.*# EDIT", line)]
    if script.name.startswith("grade-batch"):
        return  # the TA's script: site settings, edited once per cluster
    assert [line.split("=")[0] for line in marked] in (["LAB", "RUN"], ["LAB", "CHECK"])


def check_slurm(words: list[str]) -> list[str]:
    problems = []
    for word in words:
        if not word.startswith("-"):
            continue
        name = word.split("=")[0]
        if name not in SBATCH:
            problems.append(f"{name} is not an sbatch option")
        if name in ("--time", "-t") and not HMS.fullmatch(word.split("=", 1)[1]):
            problems.append(f"{word}: give the time as hh:mm:ss")
    return problems


def check_sge(words: list[str]) -> list[str]:
    name, values = words[0], words[1:]
    if name not in SGE_QSUB:
        return [f"{name} is not a Grid Engine qsub option"]
    if (name in SGE_NO_VALUE) != (not values):
        return [f"{name} {'takes no value' if name in SGE_NO_VALUE else 'needs a value'}"]
    if name == "-j" and values[0] not in ("y", "n", "yes", "no"):
        return [f"-j takes y or n, not {values[0]}"]
    if name == "-l":
        for resource in values[0].split(","):
            key, _, value = resource.partition("=")
            if not value or (key in ("h_rt", "s_rt") and not HMS.fullmatch(value)):
                return [f"-l {resource}: a resource=value (times as hh:mm:ss)"]
    return []


def check_pbs(words: list[str]) -> list[str]:
    name, values = words[0], words[1:]
    if name not in PBS_QSUB:
        return [f"{name} is not a PBS qsub option"]
    if (name in PBS_NO_VALUE) != (not values):
        return [f"{name} {'takes no value' if name in PBS_NO_VALUE else 'needs a value'}"]
    if name == "-j" and values[0] not in ("oe", "eo", "n"):
        return [f"-j takes oe, eo or n, not {values[0]}"]
    if name == "-l":
        for resource in values[0].split(","):
            key, _, value = resource.partition("=")
            if key in ("select", "nodes"):  # a chunk: select=1:ncpus=4:ngpus=1
                count, *parts = value.split(":")
                if not count.isdigit():
                    return [f"-l {resource}: {key}= starts with a count"]
                for part in parts:
                    name, _, amount = part.partition("=")
                    if name not in PBS_RESOURCES or not amount:
                        return [f"-l {resource}: {part} is not a resource=value PBS knows"]
            elif key not in PBS_RESOURCES or not value:
                return [f"-l {resource}: not a resource PBS knows"]
            elif key == "walltime" and not HMS.fullmatch(value):
                return [f"-l {resource}: give the time as hh:mm:ss"]
    return []


CHECKS = {"slurm": check_slurm, "sge": check_sge, "pbs": check_pbs}


@pytest.mark.parametrize("script", scripts(), ids=lambda p: p.relative_to(JOBS).as_posix())
def test_every_directive_is_one_the_scheduler_knows(script):
    found = directives(script)
    assert found, f"{script} has no directives"
    problems = [f"line {number}: {problem}" for number, words in found
                for problem in CHECKS[script.parent.name](words)]
    assert not problems
    options = {words[0].split("=")[0] for _, words in found}
    wanted = {"slurm": [{"--job-name"}, {"--time"}, {"--output"}, {"--gres", "--gpus"}],
              "sge": [{"-N"}, {"-l"}, {"-o"}, {"-cwd"}, {"-j"}, {"-q"}],
              "pbs": [{"-N"}, {"-l"}, {"-o"}, {"-j"}]}[script.parent.name]
    for names in wanted:
        assert options & names, f"{script.name} sets none of {names}"


def test_the_checker_catches_a_bad_directive():
    assert check_slurm(["--gpu=1"]) and check_slurm(["--time=10"]) and not check_slurm(["--time=00:10:00"])
    assert check_sge(["-l", "h_rt=10"]) and check_sge(["-cwd", "x"]) and check_sge(["-X", "1"])
    assert check_pbs(["-l", "walltime=5"]) and check_pbs(["-l", "select=1:gpus_per=1"]) and check_pbs(["-Q", "x"])
    assert not check_pbs(["-l", "select=2:ncpus=4:ngpus=1"]) and not check_pbs(["-l", "nodes=1:ppn=4:gpus=1"])


# ---- with the test cluster up: sbatch itself -------------------------------------------------------

@pytest.mark.parametrize("script", scripts("slurm"), ids=lambda p: p.name)
def test_sbatch_accepts_the_script_as_written(slurm_cluster, script, tmp_path):
    bad = tmp_path / "bad.sbatch"
    bad.write_text(script.read_text().replace("#SBATCH --time=", "#SBATCH --wall-time=", 1))
    for path, ok in ((script, True), (bad, False)):
        proc = slurm_cluster.command("sbatch", "--test-only", f"--chdir={KIT_ROOT}", str(path), "plan.json")
        assert (proc.returncode == 0) == ok, f"{path.name}: {proc.stderr}"


def test_a_check_job_runs_make_check(slurm_cluster, tmp_path):
    """A student's copy of check-lab.sbatch, its two lines edited, submitted from the kit's folder."""
    if not EMU_READY:
        pytest.skip("the CPU emulator (labs/emu) is not in this tree")
    text = (JOBS / "slurm" / "check-lab.sbatch").read_text()
    text = re.sub(r"(?m)^LAB=\S*", "LAB=increment", text)
    text = re.sub(r'(?m)^CHECK=""', 'CHECK="SOL=1 EMU=1"', text)
    mine = tmp_path / "my-check.sbatch"
    mine.write_text(text)
    output = tmp_path / "check.out"
    proc = slurm_cluster.command("sbatch", "--parsable", f"--chdir={KIT_ROOT}", f"--output={output}", str(mine))
    assert proc.returncode == 0, proc.stderr
    job = proc.stdout.strip().split(";")[0]
    deadline = time.monotonic() + 240
    while slurm_cluster.command("squeue", "-h", "-j", job).stdout.strip():
        assert time.monotonic() < deadline, "the check job did not finish in 240 s"
        time.sleep(1)
    log = output.read_text()
    assert "score: 100 / 100" in log, log[-2000:]

