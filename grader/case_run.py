"""Stage 3 and 4 for one case: CaseRunner runs any plan of it (run_plan.py) and judges what it
left: correctness (judge), and where the plan profiles it, the lab's work (work_verdict, from
the emulator's profile). The grading (grade.py), the reference's timing (timing.py), the
sanitizer step (sanitize.py) and the mutants (mutants.py) all run cases through a CaseRunner.

    CaseRunner(lab, builds, reference, sandbox=..., hide=..., gpu=..., folder=GradingFolder(...))
    runner.prepare(case)      -> ReadyCase   (hidden cases made from the secret once)
    runner.run(plan, ready)   -> PlanRun     (verdict, reason, outcome, figures, profile); a
                                              REFERENCE plan runs the reference solution's build
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader import hidden
from grader import work as work_rules
from grader.build import BuildResult, EMULATED_BUILD_FAILED, SourceBuilds
from grader.cases import ReadyCase, argv_for, prepare
from grader.compare import compare_output, output_cap
from grader.evidence import counters
from grader.evidence.record import MAX_RECORD_BYTES, RECORD_VARIABLE, Record, RecordProblem, parse_record
from grader.labs import Case, Lab
from grader.limits import LabLimits, Limits
from grader.paths import BUILD_DIR
from grader.run_plan import EMULATED_ASAN, GRADE, GRADED, REFERENCE, RunPlan
from grader.program_files import open_folder, open_left, remove_tree
from grader.run import RunOutcome, run_program
from grader.sandbox import Mount, Sandbox, clean_env, run_view
from grader.text import one_line
from grader.verdict import AC, CE, IE, determine_verdict, runtime_error

MAX_FIGURES_BYTES = 1 << 20  # the program's result file
MAX_PROFILE_BYTES = 64 << 20  # the emulator's profile (EMU_PROFILE)
MAX_FINDINGS_BYTES = 1 << 20
FINDINGS_NAME = "findings.jsonl"  # LABKIT_FINDINGS (the harness), EMU_FINDINGS (the emulator)
GPU_RECORD_NAME = "gpu-record.jsonl"  # the tracer's (grader/evidence/tracer.cpp)
COUNTERS_NAME = "counters.csv"  # Nsight Compute's


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

    def read_findings(self) -> list[dict]:
        """What the harness and the emulator recorded of the run (FINDINGS_NAME: JSON lines,
        labs/common/findings.h); a missing file is none, a malformed line is skipped."""
        text = self._read_text(FINDINGS_NAME, MAX_FINDINGS_BYTES, "the findings")
        records = []
        for line in (text or "").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("text", ""), str):
                records.append(record)
        return records

    def _read_text(self, name: str, max_bytes: int, what: str) -> str | None:
        opened = open_left(self.folder_fd, name, max_bytes, what=what)
        if opened.file is None:
            return None
        with opened.file as f:
            return f.read(max_bytes).decode("utf-8", "replace")

    def read_gpu_record(self) -> Record | RecordProblem:
        """The tracer's record of the run (grader/evidence/record.py), or why there is none."""
        text = self._read_text(GPU_RECORD_NAME, MAX_RECORD_BYTES, "the GPU record")
        if text is None:
            return RecordProblem("missing", "the GPU run left no record: the tracer was not loaded, or the program "
                                 "never used CUDA")
        return parse_record(text)

    def read_counters(self) -> dict | str:
        """Nsight Compute's figures per kernel (grader/evidence/counters.py), or why there are none."""
        text = self._read_text(COUNTERS_NAME, MAX_FIGURES_BYTES * 16, "Nsight Compute's figures")
        return "Nsight Compute wrote no figures" if text is None else counters.parse_ncu_csv(text)

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
             wrap_argv=None, env: dict[str, str] | None = None, profile: bool = True,
             extra_view: tuple[Path, ...] = (), folder_env: dict[str, str] | None = None) \
        -> tuple[RunOutcome, CaseOutput, dict]:
    """Runs one case in a fresh folder of its own (work/<case>.XXXX/), under limits, in the sandbox
    when one is given; returns the outcome, where its output is and the program's figures.
    Only the program, the case's input, extra_view (read-only) and that folder are in the
    sandbox's view; the expected output stays outside and is compared after the process has gone.
    wrap_argv(argv, folder): a supervising tool's command line around the program's
    (compute-sanitizer, Nsight Compute). profile: the emulator writes its profile into the folder
    (an emulated build's). folder_env: variables that name a file in the run's folder (the GPU
    record's)."""
    work.mkdir(parents=True, exist_ok=True)
    # A new folder each run: nothing from an earlier run leaks into this one, and two gradings
    # of the same source at once (two TAs, a test run) never share one.
    folder = Path(tempfile.mkdtemp(prefix=f"{ready.case.name}.", dir=work))
    output = CaseOutput(folder, open_folder(folder), f"{ready.case.name}.out")
    profile_path = str(folder / work_rules.PROFILE_NAME) if profile else "0"
    in_folder = {name: str(folder / file) for name, file in (folder_env or {}).items()}
    env = clean_env(os.environ, **{**(env or {}), "EMU_PROFILE": profile_path}, **in_folder,
                    LABKIT_RESULT=str(folder / "result.json"), LABKIT_FINDINGS=str(folder / FINDINGS_NAME),
                    EMU_FINDINGS=str(folder / FINDINGS_NAME))
    argv = argv_for(program, ready, folder / output.name)
    if wrap_argv is not None:
        argv = wrap_argv(argv, folder)
    case_limits = Limits.for_case(limits, time_limit_s=ready.case.time_limit_s,
                                  expected_bytes=ready.expected_path.stat().st_size, work_dir=folder)
    wrap, confined = None, {}
    if sandbox is not None and sandbox.active:
        wrap = lambda argv, status_fd: sandbox.wrap(  # noqa: E731
            argv, work=folder, view=run_view(program, ready.input_path) + [Mount(p) for p in extra_view],
            hide=hide, gpu=gpu,
            tmp_bytes=case_limits.file_bytes, status_fd=status_fd, supervised=wrap_argv is not None)
        confined = dict(own_pid_namespace=sandbox.own_pid_namespace, cleanup=sandbox.cleanup)
    outcome = run_program(argv, time_limit_s=ready.case.time_limit_s, cwd=folder, env=env,
                          limits=case_limits, wrap=wrap, **confined)
    return outcome, output, output.read_figures()


@dataclass
class PlanRun:
    """One plan run on one case: its verdict and reason (for a plan that profiles, the lab's work
    judged too), and what the grader reads beyond them: the emulator's profile, the GPU's own
    record (grader/evidence/record.py: a Record, or a RecordProblem saying why there is none), the
    GPU's counters (evidence/counters.py: per kernel, or why not). outcome is None when the plan's
    build failed (verdict CE, or IE where the grader could not build)."""
    plan: RunPlan
    verdict: str
    reason: str
    outcome: RunOutcome | None = None
    figures: dict = field(default_factory=dict)
    profile: dict | None = None
    record: Record | RecordProblem | None = None
    counters: dict | str | None = None


def with_time_factor(ready: ReadyCase, factor: float) -> ReadyCase:
    if factor == 1:
        return ready
    return ReadyCase(replace(ready.case, time_limit_s=ready.case.time_limit_s * factor),
                     ready.input_path, ready.expected_path)


class GradingFolder:
    """One grading's own folder under build/grading/, which its runners' folders share: reserved
    when the first run needs it, removed when the grading ends (release). A sandbox user is
    granted the folders above its runs, so two gradings of one source at once (the references of
    several labs, two TAs) must never share one: mkdtemp makes each its own."""

    def __init__(self, prefix: str, parent: Path = BUILD_DIR / "grading"):
        self.prefix, self.parent = prefix, parent
        self._path: Path | None = None

    def path(self) -> Path:
        if self._path is None:
            self.parent.mkdir(parents=True, exist_ok=True)
            self._path = Path(tempfile.mkdtemp(prefix=self.prefix, dir=self.parent))
        return self._path

    @property
    def reserved(self) -> bool:
        return self._path is not None

    def release(self) -> None:
        """Removes the folder and what the runs left in it; the next run reserves a new one."""
        if self._path is not None:
            remove_tree(self._path)
            self._path = None


class CaseRunner:
    """Runs any RunPlan of any case of one lab for one source: the plan's build (of `builds`, or
    for a REFERENCE plan of `reference`, the reference solution's), its environment, its limit,
    its supervising tool, under this grading's sandbox and limits, hiding what no program may
    read. Each run gets a fresh folder under the grading's folder; its output is removed once
    read unless keep_outputs (then the grading's folder keeps each GRADE run's output file)."""

    def __init__(self, lab: Lab, builds: SourceBuilds, reference: SourceBuilds, *, sandbox: Sandbox | None,
                 hide: tuple[Path, ...], gpu: bool, folder: GradingFolder, secret: hidden.Secret | None = None,
                 keep_outputs: bool = False, tracer: Path | None = None):
        self.lab, self.builds, self.reference, self.sandbox, self.hide, self.gpu = lab, builds, reference, sandbox, hide, gpu
        self.folder, self.secret, self.keep_outputs = folder, secret, keep_outputs
        self.tracer = tracer  # the GPU record's library (evidence/tracer_build.py), None where none was built
        self._hidden_ready: dict[str, ReadyCase] = {}

    def prepare(self, case: Case) -> ReadyCase:
        """The case's files; a hidden case's are made from the secret once per grading. ConfigError
        when a case file cannot be made or trusted (the grader's failure, not the student's)."""
        if case.group == hidden.HIDDEN_GROUP:
            if case.name not in self._hidden_ready:
                self._hidden_ready[case.name] = hidden.prepare_hidden(self.lab, case, self.secret)
            return self._hidden_ready[case.name]
        return prepare(self.lab, case)

    def builds_for(self, plan: RunPlan) -> SourceBuilds:
        """The builds of the source the plan runs: the reference's for a REFERENCE plan."""
        return self.reference if plan.purpose == REFERENCE else self.builds

    def build_for(self, plan: RunPlan) -> BuildResult:
        builds = self.builds_for(plan)
        if plan.build == GRADED:
            return builds.graded()
        return builds.get(True, plan.build == EMULATED_ASAN)

    def run(self, plan: RunPlan, ready: ReadyCase, *, wrap_argv=None) -> PlanRun:
        build = self.build_for(plan)
        if not build.ok:
            if build.grader_error:
                return PlanRun(plan, IE, build.reason)
            # Not a pass: code that will not build there would dodge the runs.
            return PlanRun(plan, CE, one_line(f"{EMULATED_BUILD_FAILED} for {plan.named}: {build.reason[:200]}"))
        ready = with_time_factor(ready, plan.time_factor)
        env, folder_env, view = dict(plan.env), {}, ()
        traced = plan.gpu_record and self.tracer is not None
        if traced:  # the tracer records the run from inside it: its library read-only in the view
            env["CUDA_INJECTION64_PATH"] = str(self.tracer)
            folder_env[RECORD_VARIABLE] = GPU_RECORD_NAME
            view = (self.tracer,)
        if plan.counters:  # Nsight Compute runs the program inside the sandbox: its install read-only in the view
            ncu = counters.ncu_path()
            wrap_argv = lambda argv, folder: counters.ncu_argv(argv, folder / COUNTERS_NAME, ncu=ncu)  # noqa: E731
            view = (*view, *counters.ncu_install_dirs(ncu))
        outcome, output, figures = run_case(build.programs[ready.case.program], ready, self.folder.path() / self.lab.id,
                                            sandbox=self.sandbox, limits=self.lab.limits, gpu=self.gpu and not plan.emulated,
                                            hide=self.hide, wrap_argv=wrap_argv, env=env, profile=plan.profile,
                                            extra_view=view, folder_env=folder_env)
        run = PlanRun(plan, AC, "", outcome, figures)
        try:
            own_files = self.builds_for(plan).source.files(self.lab)
            run.verdict, run.reason = judge(self.lab, ready, outcome, output, own_files)
            run.profile = output.read_profile() if plan.profile else None
            if plan.profile and run.verdict == AC:  # a reason that says more than "correct" (a flood's note) stays
                work, why = work_verdict(self.lab, ready, plan, run.profile)
                if work != AC:
                    run.verdict, run.reason = work, why
            if traced:
                run.record = output.read_gpu_record()
            if plan.counters:
                run.counters = output.read_counters()
                if isinstance(run.counters, str):
                    run.counters += counters.what_ncu_said(outcome.stdout + outcome.stderr)
        finally:
            if self.keep_outputs and plan.purpose == GRADE:
                os.close(output.folder_fd)
            else:
                output.remove()
        return run


def metric(figures: dict, outcome: RunOutcome, metric: str) -> float | None:
    if metric == "wall_ms":
        return outcome.wall_s * 1000
    value = figures.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


def judge(lab: Lab, ready: ReadyCase, outcome: RunOutcome, output: CaseOutput,
          own_files: tuple[Path, ...] = ()) -> tuple[str, str]:
    """Correctness alone: (AC or WA or a run failure, reason). The output is compared only when
    the run ended normally; the verdict itself is verdict.determine_verdict's. own_files: the
    student's files as built (Source.files), whose lines a run failure's reason names."""
    mismatch = None
    failure = runtime_error(outcome, ready.case.time_limit_s, output.read_findings(), own_files)
    if failure is None:
        rule = ready.case.compare or lab.compare
        opened = open_left(output.folder_fd, output.name, output_cap(rule, ready.expected_path.stat().st_size),
                           not_same_as=(ready.expected_path,))
        try:
            mismatch = compare_output(ready.expected_path, opened, rule)
        finally:
            opened.close()
    return determine_verdict(outcome, failure, mismatch)


def work_verdict(lab: Lab, ready: ReadyCase, plan: RunPlan, profile: dict | None) -> tuple[str, str]:
    """AC, or WORK with what the run did not do of the lab's work (lab.toml [work], grader/work.py),
    judged with the devices the plan gave the program."""
    facts = work_rules.case_facts(lab.work, ready.case, ready.input_path, plan.device_count)
    reason = work_rules.judge(lab.work, facts, profile)
    return (AC, "correct") if reason is None else (work_rules.WORK, one_line(f"not the lab's work: {reason}"))
