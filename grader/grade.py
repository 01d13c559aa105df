"""The orchestrator: grades one source of one lab through the stages, in order.

    intake.py    1 the submission's own files, checked, copied to a folder with a safe name
    build.py     2 compiled in the build sandbox; forbidden library calls refused (symbols.py)
    run_plan.py    every run a case gets (builds, devices, checks, profile, tools), as data
    case_grade.py  one case through its plans: CaseGrader, the verdict, work, evidence, timing
    case_run.py  3 CaseRunner runs any plan under limits (run.py, limits.py) in the run
                   sandbox (sandbox.py)
                 4 its output, opened as program_files.py says, compared (compare.py); the
                   lab's work judged from the emulator's profile (work.py); on a GPU node
                   the GPU run's own record held against an emulated run's (evidence/)
    verdict.py   5 determine_verdict(): a pure function of the run and the comparison
    timing.py      the reference solution's times and figures: time limits, SLOW; whether a
                   program's own figures can be trusted
    sanitize.py    on a GPU, the [sanitize] cases under compute-sanitizer and the emulator
    report.py    6 the Report, and its formats (terminal, JSON, Gradescope, JUnit)

grader/CONTRACT.md says what a graded program sees, each limit and how it fails, and what each
verdict means; this file only wires the stages together.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from grader import hidden, sanitize
from grader.case_grade import CaseGrader
from grader.build import SourceBuilds, build_dir_for
from grader.intake import Source
from grader.case_run import CaseRunner, GradingFolder
from grader.evidence.grading import GpuEvidence, grading_tracer
from grader.gpu import gpu_count
from grader.labs import PUBLIC, Case, Lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR
from grader.report import Report
from grader.sandbox import Sandbox, gpu_device_nodes, protection_notes, sandbox_for
from grader.text import one_line
from grader.timing import ReferenceTiming
from grader.verdict import CE, IE, CaseResult


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
        hide = [BUILD_DIR, *lab.instructor_only_files]
        # The secret's file, whoever read it (a batch hands the Grader the secret, not its file).
        for path in (secret_file, self.secret and self.secret.path, os.environ.get("LABKIT_SECRET_FILE")):
            if path and Path(path).resolve() not in hide:
                hide.append(Path(path).resolve())
        self.builds = SourceBuilds(lab, source, emu=emu, asan=asan, sandbox=self.sandbox, private=source.submission)
        self.folder = GradingFolder(f"{build_dir_for(source, emu, asan).name}-{lab.id}.")
        # On a GPU node, the GPU run's own record and counters (grader/evidence/): the tracer is
        # built before any submission runs. LABKIT_EVIDENCE=off: a TA's benchmark of what the
        # evidence costs (grader/scripts/bench_batch.sh).
        evidence = not emu and os.environ.get("LABKIT_EVIDENCE", "on") != "off"
        tracer = grading_tracer() if evidence else None
        # The reference solution's builds: its runs (REFERENCE plans) time the cases and check that
        # the GPU record can be taken here.
        reference = SourceBuilds(lab, Source("solution", SOLUTIONS_DIR), emu=emu, asan=asan, sandbox=self.sandbox)
        self.runner = CaseRunner(lab, self.builds, reference, sandbox=self.sandbox, hide=tuple(hide),
                                 gpu=not emu and bool(gpu_device_nodes()), folder=self.folder, secret=self.secret,
                                 keep_outputs=keep_outputs, tracer=tracer.path if tracer else None)
        self.evidence = GpuEvidence(lab, self.runner, tracer)
        self.case_grader = CaseGrader(lab, source, self.runner, self.evidence, emu=emu, checks=checks, gpus=self.gpus)

    def grade(self, cases: list[Case] | None = None) -> Report:
        """The report on `cases` (default: this grading's). The source is built once, the first
        time: a caller grading case by case (grader mutants) calls this once a case."""
        try:
            return self._report(self.cases if cases is None else cases)
        finally:
            if not self.runner.keep_outputs:
                self.folder.release()

    def _report(self, cases: list[Case]) -> Report:
        self.log(f"building {self.lab.id} from {self.source.root} ...")
        build = self.builds.graded()
        report = Report(self.lab.id, self.source.name, self.emu, [], build_log=build.log)
        report.notes += protection_notes(self.sandbox)
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
            report.results = [CaseResult(c.name, verdict, build.reason, 0.0, c.points)
                              for c in cases]
            return report
        # A source that built is timed against the reference solution, run as it is.
        timing = ReferenceTiming(self.lab, cases, self.source, self.runner, emu=self.emu, asan=self.asan,
                                 checks=self.checks, gpus=self.gpus)
        reference = timing.reference_metrics(report)
        limits = timing.time_limits(report)
        for case in cases:
            case = dataclasses.replace(case, time_limit_s=limits.get(case.name, case.time_limit_s))
            result = self.case_grader.grade(case, reference, timing)
            self.on_result(result)
            report.results.append(result)
        report.notes += self.evidence.notes()
        if self.case_grader.work_unchecked:
            report.notes.append(f"the lab's work (lab.toml [work]) was not checked: the emulated build it runs "
                                f"could not be made on this node ({one_line(self.case_grader.work_unchecked)[:200]}); install "
                                f"what it names, or grade under the emulator (--emu)")
        flagged = [r.case for r in report.results if r.timing_flagged]
        if flagged:
            report.notes.append(f"timing flagged on {', '.join(flagged)}: the program's own figures disagree "
                                f"with what the grader observed; look at these by hand")
        if self.sanitize:
            sanitize.SanitizerStep(self.lab, cases, self.runner, log=self.log).run(report)
        return report
