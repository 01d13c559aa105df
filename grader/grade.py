"""The orchestrator: grades one source of one lab through the stages, in order.

    intake.py    1 the submission's own files, checked, copied to a folder with a safe name
    build.py     2 compiled in the build sandbox; forbidden library calls refused (symbols.py)
    run_plan.py    every run a case gets (builds, devices, checks, profile, tools), as data
    case_run.py  3 CaseRunner runs any plan under limits (run.py, limits.py) in the run
                   sandbox (sandbox.py)
                 4 its output, opened as program_files.py says, compared (compare.py); the
                   lab's work judged from the emulator's profile (work.py); on a GPU node
                   the GPU run's own record held against an emulated run's (evidence/)
    verdict.py   5 determine_verdict(): a pure function of the run and the comparison
    timing.py      the reference solution's times and figures: time limits, SLOW
    sanitize.py    on a GPU, the [sanitize] cases under compute-sanitizer and the emulator
    report.py    6 the Report, and its formats (terminal, JSON, Gradescope, JUnit)

grader/CONTRACT.md says what a graded program sees, each limit and how it fails, and what each
verdict means; this file only wires the stages together.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

from grader import hidden, honest_timing, run_plan as plans, sanitize
from grader import work as work_rules
from grader.build import BuildResult, SourceBuilds, build_dir_for
from grader.intake import Source
from grader.case_run import CaseRunner, PlanRun
from grader.cases import ReadyCase
from grader.evidence.grading import GpuEvidence
from grader.gpu import gpu_count
from grader.labs import PUBLIC, Case, ConfigError, Lab
from grader.paths import BUILD_DIR
from grader.program_files import remove_tree
from grader.report import Report
from grader.sandbox import Sandbox, gpu_device_nodes, sandbox_for
from grader.text import one_line
from grader.timing import ReferenceTiming
from grader.verdict import AC, CE, IE, TLE, WA, CaseResult


class Grader:
    """Grades one source. sandbox: "auto" | "require" | "off" | a Sandbox (None: LABKIT_SANDBOX,
    default auto); secret: the instructor's, for hidden cases (None: from the environment, see
    grader/hidden.py); sanitize: compute-sanitizer on one small case (GPU only); cases: the cases
    to grade (default: the lab's, of `groups`, with the hidden ones the secret makes)."""

    def __init__(self, lab: Lab, source: Source, *, emu: bool, asan: bool = False,
                 groups: tuple[str, ...] = (PUBLIC,), keep_outputs: bool = False, log=print,
                 sandbox: str | Sandbox | None = None, secret: hidden.Secret | None = None,
                 secret_file: Path | None = None, sanitize: bool | None = None, checks: bool = True,
                 cases: list[Case] | None = None, on_result=None):
        # checks: under the emulator, AddressSanitizer, the race detector and a pass with threads
        # in a random order; on a GPU, compute-sanitizer on the lab's [sanitize] case.
        asan = asan or (emu and checks)
        self.lab, self.source, self.emu, self.asan, self.checks = lab, source, emu, asan, checks
        self.log = log
        # Each case's result as it is graded (the CLI's progress); by default a line of the log.
        self.on_result = on_result or (lambda r: log(f"  {r.case}: {r.verdict} ({r.reason})"))
        self.sandbox = sandbox if isinstance(sandbox, Sandbox) else sandbox_for(sandbox, submission=source.submission)
        self.secret = secret or hidden.load_secret(secret_file)
        if cases is None:
            cases = [c for c in lab.cases if c.group in groups]
            if self.secret is not None:
                cases += hidden.hidden_cases(lab, self.secret)
        self.cases = cases
        self.sanitize = (checks and not emu) if sanitize is None else sanitize
        self.gpus = 0 if emu else gpu_count()
        hide = [BUILD_DIR, *lab.instructor_only_files()]
        for path in (secret_file, os.environ.get("LABKIT_SECRET_FILE")):
            if path:
                hide.append(Path(path).resolve())
        self.builds = SourceBuilds(lab, source, emu=emu, asan=asan, sandbox=self.sandbox)
        # This grading's own folder: a sandbox user is granted the folders above its runs, so two
        # gradings of one source at once (the references of several labs, two TAs) never share one.
        (BUILD_DIR / "grading").mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f"{build_dir_for(source, emu, asan).name}-{lab.id}.",
                                            dir=BUILD_DIR / "grading"))
        self.runner = CaseRunner(lab, self.builds, sandbox=self.sandbox, hide=tuple(hide),
                                 gpu=not emu and bool(gpu_device_nodes()), work=self.folder / lab.id, secret=self.secret,
                                 keep_outputs=keep_outputs)
        self.work_unchecked = ""  # why lab.toml's [work] could not be judged on this GPU node
        # On a GPU node, the GPU run's own record and counters (grader/evidence/).
        # LABKIT_EVIDENCE=off: a TA's benchmark of what the evidence costs (grader/scripts/bench_batch.sh).
        self.evidence = GpuEvidence(lab, self.runner, self.builds,
                                    enabled=not emu and os.environ.get("LABKIT_EVIDENCE", "on") != "off")

    def protection_notes(self) -> list[str]:
        """What protects this grading run, said once in the report; loud when the sandbox is off."""
        from grader.limits import cgroups_available
        cgroups = cgroups_available()
        limits = (f"limits on: wall time, CPU time, file size, stdout/stderr kept to 64 KiB, work folder "
                  f"size, processes ({'pids cgroup' if cgroups['processes'] else 'watchdog count'}), "
                  f"memory ({'memory cgroup' if cgroups['memory'] else 'OFF: no cgroup can be made here'})")
        if self.sandbox.kind == "bubblewrap":
            return [f"sandbox on (bubblewrap): no network, own PID namespace, only the case's input and "
                    f"work folder in view; {limits}"]
        if self.sandbox.active:
            return [f"sandbox on ({self.sandbox.describe()}): no network, no signals to the grader, "
                    f"only the case's input and work folder in reach; {limits}"]
        return [f"WARNING: SANDBOX OFF, {self.sandbox.why_off}. Protections OFF: the program can read "
                f"any file the grader can (expected outputs, solutions), use the network, and leave "
                f"behind processes that leave its session; {limits}"]

    def build(self) -> BuildResult:
        """Stage 2 for this source (grade() calls it; a caller grading case by case may call it
        once and hand the result to each grade())."""
        self.log(f"building {self.lab.id} from {self.source.root} ...")
        return self.builds.graded()

    def grade(self, build: BuildResult | None = None, cases: list[Case] | None = None) -> Report:
        """The report on `cases` (default: this grading's); build: one made already (by build())."""
        try:
            return self._report(build, self.cases if cases is None else cases)
        finally:
            if not self.runner.keep_outputs:
                remove_tree(self.folder)

    def _report(self, build: BuildResult | None, cases: list[Case]) -> Report:
        if build is not None:
            self.builds.set_graded(build)
        build = self.build()
        report = Report(self.lab.id, self.source.name, self.emu, [], build_log=build.log)
        report.notes += self.protection_notes()
        if self.emu and self.checks:
            report.notes.append("checks under the emulator: AddressSanitizer, the race detector (EMU_RACECHECK=1), "
                                "and each case run again with threads in a random order; --no-checks skips them")
        if self.secret is not None:
            count = sum(c.group == hidden.HIDDEN_GROUP for c in cases)
            # Students see the notes (Gradescope's output): the secret's path and fingerprint
            # go to the staff notes only.
            report.notes.append(f"{count} hidden cases")
            report.staff_notes.append(f"hidden cases made from the secret in {self.secret.source} "
                                      f"(fingerprint {self.secret.fingerprint})")
        if not build.ok:
            verdict = IE if build.grader_error else CE
            report.results = [CaseResult(c.name, verdict, one_line(self.source.shorten(build.reason)), 0.0, c.points)
                              for c in cases]
            return report
        timing = self.reference_timing(cases)
        reference = timing.reference_metrics(report)
        limits = timing.time_limits(report)
        for case in cases:
            case = dataclasses.replace(case, time_limit_s=limits.get(case.name, case.time_limit_s))
            result = self._grade_case(case, reference, timing)
            self.on_result(result)
            report.results.append(result)
        report.notes += self.evidence.notes()
        if self.work_unchecked:
            report.notes.append(f"the lab's work (lab.toml [work]) was not checked: the emulated build it runs "
                                f"could not be made on this node ({one_line(self.work_unchecked)[:200]}); install "
                                f"what it names, or grade under the emulator (--emu)")
        flagged = [r.case for r in report.results if r.timing_flagged]
        if flagged:
            report.notes.append(f"timing flagged on {', '.join(flagged)}: the program's own figures disagree "
                                f"with what the grader observed; look at these by hand")
        if self.sanitize:
            sanitize.SanitizerStep(self.lab, cases, self.runner, log=self.log).run(report)
        return report

    def reference_timing(self, cases: list[Case] | None = None) -> ReferenceTiming:
        """The reference solution's times and figures for these cases, through this grading's runner."""
        return ReferenceTiming(self.lab, self.cases if cases is None else cases, self.source, self.runner,
                               emu=self.emu, asan=self.asan, checks=self.checks, gpus=self.gpus)

    def _graded_run(self, plan: plans.RunPlan, ready: ReadyCase) -> PlanRun:
        """A GRADE run; one that profiled and ran past its limit is told apart from a hang by its
        retries (run_plan.profile_retries): a program that never ends is TLE after two limits."""
        run = self.runner.run(plan, ready)
        if not plan.profile or run.verdict != TLE:
            return run
        plain, slower = plans.profile_retries(plan)
        run = self.runner.run(plain, ready)
        return run if run.verdict != AC else self.runner.run(slower, ready)

    def _right_on_one_device(self, ready: ReadyCase, passed: list[plans.RunPlan], failed: plans.RunPlan) -> bool:
        """Whether a multi-device program that went wrong on several devices is right on one: then
        the mistake is in what the devices share. A GPU node's own single GPU may have answered it
        already (the first run); under the emulator one more run on 1 device does."""
        if any(plan.devices == 1 and not plan.emulated_devices for plan in passed):  # a GPU node's one GPU
            return failed.devices is not None and failed.devices >= 2
        diagnose = plans.one_device_plan(failed)
        return diagnose is not None and self.runner.run(diagnose, ready).verdict == AC

    def _work_on_gpu_node(self, case: Case, ready: ReadyCase, gpu_run: PlanRun) -> tuple[str, str]:
        """On a GPU node: lab.toml's [work] judged on an emulated run of the case (run_plan.work_plan),
        and the GPU run's own evidence held against it (_gpu_evidence): the grade of record rests on
        what the GPU run did, never on the program not knowing it is emulated. (AC, '') when met."""
        work_plan = plans.work_plan(self.lab, case, gpu_run.plan)
        run = self.runner.run(work_plan, ready)
        if run.verdict == IE:
            # The node lacks what the emulator needs: the grader's failing, not the student's.
            # The case keeps its verdict; the report says the work was not checked.
            self.work_unchecked = run.reason
            return AC, ""
        if run.verdict == CE:
            return CE, run.reason
        if run.verdict == work_rules.WORK:
            return run.verdict, one_line(self.source.shorten(f"{run.reason} (the emulated run that checks the lab's work)"))
        if run.verdict != AC:
            # Right on the GPU, wrong under the emulator: the emulator's checks say why, as for [sanitize].
            return run.verdict, one_line(self.source.shorten(f"under the emulator, which checks the lab's work: {run.reason}"))
        compared = plans.evidence_plan(work_plan, gpu_run.plan)
        if compared is not None:
            run = self.runner.run(compared, ready)
        why = self.evidence.judge(case, ready, gpu_run, run)
        if why:
            return work_rules.WORK, one_line(self.source.shorten(f"not the lab's work on the GPU: {why}"))
        return AC, ""

    def _grade_case(self, case: Case, reference: dict, timing: ReferenceTiming) -> CaseResult:
        try:
            ready = self.runner.prepare(case)
        except ConfigError as e:  # a case file the kit cannot make or trust: not the student's
            return CaseResult(case.name, IE, one_line(f"grader error, not yours: {e}"), 0.0, case.points)
        first, passed, where = None, [], []
        for plan in plans.case_plans(self.lab, case, emu=self.emu, checks=self.checks, gpus=self.gpus):
            run = self._graded_run(plan, ready)
            verdict, reason = run.verdict, run.reason
            first = first or run
            if plan.where:  # which devices it ran on is said even when correct
                where.append(plan.where)
            if verdict != AC:
                if verdict == WA and self._right_on_one_device(ready, passed, plan):
                    reason += "; right on 1 device: is what the devices exchange, or the rows each one owns, wrong?"
                label = plan.label if run.outcome is not None else ""
                reason = one_line(self.source.shorten(f"{reason} ({label})" if label else reason))
                break
            passed.append(plan)
        else:
            where = list(dict.fromkeys(where))
            reason = one_line(f"{first.reason} ({', '.join(where)})" if where else first.reason)
            if first.plan.gpu_record:  # a GPU run has no profile: the lab's work is judged on an emulated run
                work, why = self._work_on_gpu_node(case, ready, first)
                if work != AC:
                    verdict, reason = work, why
        outcome, figures = first.outcome, first.figures
        wall = outcome.wall_s if outcome is not None else 0.0
        points = case.points if verdict == AC else case.points * self.lab.work.credit if verdict == work_rules.WORK else 0.0
        result = CaseResult(case.name, verdict, reason, points, case.points, wall, figures)
        doubts = honest_timing.figure_doubts(figures, outcome) if verdict == AC else []
        if doubts:
            result.timing_flagged = True
            result.timing_note = "timing flagged: " + "; ".join(doubts)
        if verdict == AC and case.timed:
            unbacked = self.evidence.timing_unbacked(case, first) if first.plan.gpu_record else None
            timing.apply(result, outcome, reference.get(case.name), unbacked=unbacked)
        return result
