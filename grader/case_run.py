"""Stage 3 and 4 for one case: run it (run_case: a fresh work folder, limits, the sandbox) and
judge what it left (judge: correctness; work_verdict: the lab's work, from the emulator's
profile). grade.py calls these for every run of every case; so do the sanitizer step
(sanitize.py) and the reference's timing (timing.py)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader import work as work_rules
from grader.cases import ReadyCase, argv_for
from grader.compare import compare_output, output_cap
from grader.labs import Lab
from grader.limits import LabLimits, Limits
from grader.program_files import open_folder, open_left, remove_tree
from grader.run import RunOutcome, run_program
from grader.sandbox import Sandbox, clean_env, run_view
from grader.text import one_line
from grader.verdict import AC, determine_verdict, runtime_error

MAX_FIGURES_BYTES = 1 << 20  # the program's result file
MAX_PROFILE_BYTES = 64 << 20  # the emulator's profile (EMU_PROFILE)


@dataclass
class CaseOutput:
    """Where a run's output file is: read through a descriptor of its folder taken before the
    program ran (program_files.py), never by following a path the program could have planted."""
    folder: Path
    folder_fd: int
    name: str

    def read_figures(self) -> dict:
        """The program's result file; a missing, odd or malformed one gives no figures."""
        opened = open_left(self.folder_fd, "result.json", MAX_FIGURES_BYTES, what="the result file")
        if opened.file is None:
            return {}
        with opened.file as f:
            try:
                figures = json.loads(f.read(MAX_FIGURES_BYTES))
            except ValueError:
                return {}
        return figures if isinstance(figures, dict) else {}

    def read_profile(self) -> dict | None:
        """The emulator's profile of the run (grader/work.py), or None when it wrote none."""
        opened = open_left(self.folder_fd, work_rules.PROFILE_NAME, MAX_PROFILE_BYTES, what="the emulator's profile")
        if opened.file is None:
            return None
        with opened.file as f:
            try:
                profile = json.loads(f.read(MAX_PROFILE_BYTES))
            except ValueError:
                return None
        return profile if isinstance(profile, dict) else None

    def remove(self) -> None:
        os.close(self.folder_fd)
        remove_tree(self.folder)


def run_case(program: Path, ready: ReadyCase, work: Path, *, sandbox: Sandbox | None = None,
             limits: LabLimits = LabLimits(), gpu: bool = False, hide: tuple[Path, ...] = (),
             wrap_argv=None, env: dict[str, str] | None = None) -> tuple[RunOutcome, CaseOutput, dict]:
    """Runs one case in a fresh folder of its own (work/<case>.XXXX/), under limits, in the sandbox
    when one is given; returns the outcome, where its output is and the program's figures.
    Only the program, the case's input and that folder are in the sandbox's view; the expected
    output stays outside and is compared after the process has gone. wrap_argv: a supervising
    tool's command line around the program's (compute-sanitizer)."""
    work.mkdir(parents=True, exist_ok=True)
    # A new folder each run: nothing from an earlier run leaks into this one, and two gradings
    # of the same source at once (two TAs, a test run) never share one.
    folder = Path(tempfile.mkdtemp(prefix=f"{ready.case.name}.", dir=work))
    output = CaseOutput(folder, open_folder(folder), f"{ready.case.name}.out")
    # The emulator's profile (read by emulated builds only) unless env says EMU_PROFILE=0.
    env = clean_env(os.environ, **{"EMU_PROFILE": str(folder / work_rules.PROFILE_NAME), **(env or {})},
                    LABKIT_RESULT=str(folder / "result.json"))
    argv = argv_for(program, ready, folder / output.name)
    if wrap_argv is not None:
        argv = wrap_argv(argv)
    case_limits = Limits.for_case(limits, time_limit_s=ready.case.time_limit_s,
                                  expected_bytes=ready.expected_path.stat().st_size, work_dir=folder)
    wrap, confined = None, {}
    if sandbox is not None and sandbox.active:
        wrap = lambda argv, status_fd: sandbox.wrap(  # noqa: E731
            argv, work=folder, view=run_view(program, ready.input_path), hide=hide, gpu=gpu,
            tmp_bytes=case_limits.file_bytes, status_fd=status_fd, supervised=wrap_argv is not None)
        confined = dict(own_pid_namespace=sandbox.own_pid_namespace, cleanup=sandbox.cleanup)
    outcome = run_program(argv, time_limit_s=ready.case.time_limit_s, cwd=folder, env=env,
                          limits=case_limits, wrap=wrap, **confined)
    return outcome, output, output.read_figures()


def metric(figures: dict, outcome: RunOutcome, metric: str) -> float | None:
    if metric == "wall_ms":
        return outcome.wall_s * 1000
    value = figures.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


def judge(lab: Lab, ready: ReadyCase, outcome: RunOutcome, output: CaseOutput) -> tuple[str, str]:
    """Correctness alone: (AC or WA or a run failure, reason). The output is compared only when
    the run ended normally; the verdict itself is verdict.determine_verdict's."""
    mismatch = None
    failure = runtime_error(outcome, ready.case.time_limit_s)
    if failure is None:
        rule = ready.case.compare or lab.compare
        opened = open_left(output.folder_fd, output.name, output_cap(rule, ready.expected_path.stat().st_size),
                           not_same_as=(ready.expected_path,))
        try:
            mismatch = compare_output(ready.expected_path, opened, rule)
        finally:
            opened.close()
    return determine_verdict(outcome, failure, mismatch)


def work_verdict(lab: Lab, ready: ReadyCase, env: dict[str, str], profile: dict | None) -> tuple[str, str]:
    """AC, or WORK with what the run did not do of the lab's work (lab.toml [work], grader/work.py)."""
    n, m = work_rules.header_sizes(ready.input_path)
    params = work_rules.case_options(list(ready.case.args), dict(ready.case.params))
    facts = work_rules.CaseFacts(ready.case.name, ready.case.program, params, n, m, int(env.get("CUDA_EMU_DEVICES", "1")))
    reason = work_rules.judge(lab.work, facts, profile)
    return (AC, "correct") if reason is None else (work_rules.WORK, one_line(f"not the lab's work: {reason}"))
