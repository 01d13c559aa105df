"""The orchestrator: grades one source of one lab through the stages, in order.

    intake.py    1 the submission's own files, checked, copied to a folder with a safe name
    build.py     2 compiled in the build sandbox; forbidden library calls refused (symbols.py)
    run_plan.py    the runs each case gets (devices, the emulator's checks), as data
    case_run.py  3 each run under limits (run.py, limits.py) in the run sandbox (sandbox.py)
                 4 its output, opened as program_files.py says, compared (compare.py); the
                   lab's work judged from the emulator's profile (work.py)
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
from pathlib import Path

from grader import hidden, honest_timing, sanitize
from grader import work as work_rules
from grader.build import EMULATED_BUILD_FAILED, BuildResult, Source, build_dir_for, build_lab
from grader.case_run import CaseOutput, judge, run_case, work_verdict
from grader.cases import ReadyCase, prepare
from grader.gpu import gpu_count
from grader.labs import LARGE, PUBLIC, Case, ConfigError, Lab
from grader.paths import BUILD_DIR, KIT_ROOT
from grader.report import Report
from grader.run import RunOutcome
from grader.run_plan import RunPlan, plans_for
from grader.sandbox import Sandbox, gpu_device_nodes, sandbox_for
from grader.text import one_line
from grader.timing import ReferenceTiming
from grader.verdict import AC, CE, IE, TLE, WA, CaseResult

PROFILE_SLOWDOWN = 3  # a slow profiled run's second limit, times the case's (make emu-bench measures the cost)


class Grader:
    """Grades one source. sandbox: "auto" | "require" | "off" | a Sandbox (None: LABKIT_SANDBOX,
    default auto); secret: the instructor's, for hidden cases (None: from the environment, see
    grader/hidden.py); sanitize: compute-sanitizer on one small case (GPU only)."""

    def __init__(self, lab: Lab, source: Source, *, emu: bool, asan: bool = False,
                 groups: tuple[str, ...] = (PUBLIC,), keep_outputs: bool = False, log=print,
                 sandbox: str | Sandbox | None = None, secret: hidden.Secret | None = None,
                 secret_file: Path | None = None, sanitize: bool | None = None, checks: bool = True):
        # checks: under the emulator, AddressSanitizer, the race detector and a pass with threads
        # in a random order; on a GPU, compute-sanitizer on the lab's [sanitize] case.
        asan = asan or (emu and checks)
        self.lab, self.source, self.emu, self.asan, self.checks = lab, source, emu, asan, checks
        self.cases = [c for c in lab.cases if c.group in groups]
        self.keep_outputs = keep_outputs
        self.log = log
        self.work = BUILD_DIR / "grading" / build_dir_for(source, emu, asan).name / lab.id
        self.sandbox = sandbox if isinstance(sandbox, Sandbox) else \
            sandbox_for(sandbox, submission=source.name.startswith("sub-"))
        self.limits = lab.limits
        self.secret = secret or hidden.load_secret(secret_file)
        self.secret_file = secret_file
        self._hidden_ready: dict[str, ReadyCase] = {}
        if self.secret is not None:
            self.cases += hidden.hidden_cases(lab, self.secret)
        self.sanitize = (checks and not emu) if sanitize is None else sanitize
        # On a GPU node, emulated builds (by whether ASan is on): for multi-device runs on a node
        # with too few GPUs, and for lab.toml's [sanitize] emulator_checks.
        self._emulated_builds: dict[bool, BuildResult] = {}
        self.work_unchecked = ""  # why lab.toml's [work] could not be judged on this GPU node

    def _short(self, reason: str) -> str:
        """A reason with the grader's own folders taken off the student's file names:
        'fw/fw.c:16', not 'build/unpacked/alice-1f2e3d4c/fw/fw.c:16'. A kit folder (starter/,
        solutions/) stays: 'starter/fw/fw.c:16' is the path the program itself prints."""
        root = Path(self.source.root).resolve()
        if root.is_relative_to(KIT_ROOT.resolve()) and not root.is_relative_to(BUILD_DIR.resolve()):
            return reason.replace(str(KIT_ROOT.resolve()) + "/", "")
        for prefix in (str(root) + "/", os.path.relpath(root, KIT_ROOT) + "/"):
            if not prefix.startswith(".."):
                reason = reason.replace(prefix, "")
        return reason

    def _prepare(self, case: Case) -> ReadyCase:
        if case.group == hidden.HIDDEN_GROUP:
            if case.name not in self._hidden_ready:
                self._hidden_ready[case.name] = hidden.prepare_hidden(self.lab, case, self.secret)
            return self._hidden_ready[case.name]
        return prepare(self.lab, case)

    def _run(self, program: Path, ready: ReadyCase, work: Path, wrap_argv=None,
             env: dict[str, str] | None = None) -> tuple[RunOutcome, CaseOutput, dict]:
        """run_case with this grading's sandbox, limits and list of things to hide."""
        hide = [BUILD_DIR, *self.lab.instructor_only_files()]
        for path in (self.secret_file, os.environ.get("LABKIT_SECRET_FILE")):
            if path:
                hide.append(Path(path).resolve())
        if not self.lab.work.active:  # nothing to judge from a profile: none is made
            env = {**(env or {}), "EMU_PROFILE": "0"}
        return run_case(program, ready, work, sandbox=self.sandbox, limits=self.limits,
                        gpu=not self.emu and bool(gpu_device_nodes()), hide=tuple(hide),
                        wrap_argv=wrap_argv, env=env)

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
        return build_lab(self.lab, src_root=self.source.root, build_dir=build_dir_for(self.source, self.emu, self.asan),
                         emu=self.emu, asan=self.asan, sandbox=self.sandbox)

    def grade(self, build: BuildResult | None = None) -> Report:
        build = build or self.build()
        report = Report(self.lab.id, self.source.name, self.emu, [], build_log=build.log)
        report.notes += self.protection_notes()
        if self.emu and self.checks:
            report.notes.append("checks under the emulator: AddressSanitizer, the race detector (EMU_RACECHECK=1), "
                                "and each case run again with threads in a random order; --no-checks skips them")
        if self.secret is not None:
            count = sum(c.group == hidden.HIDDEN_GROUP for c in self.cases)
            # Students see the notes (Gradescope's output): the secret's path and fingerprint
            # go to the staff notes only.
            report.notes.append(f"{count} hidden cases")
            report.staff_notes.append(f"hidden cases made from the secret in {self.secret.source} "
                                      f"(fingerprint {self.secret.fingerprint})")
        if not build.ok:
            verdict = IE if build.grader_error else CE
            report.results = [CaseResult(c.name, verdict, one_line(self._short(build.reason)), 0.0, c.points)
                              for c in self.cases]
            return report
        timing = ReferenceTiming(self)
        reference = timing.reference_metrics(report)
        limits = timing.time_limits(report)
        for case in self.cases:
            case = dataclasses.replace(case, time_limit_s=limits.get(case.name, case.time_limit_s))
            result = self._grade_case(case, build.programs[case.program], reference, timing)
            self.log(f"  {case.name}: {result.verdict} ({result.reason})")
            report.results.append(result)
        if self.work_unchecked:
            report.notes.append(f"the lab's work (lab.toml [work]) was not checked: the emulated build it runs "
                                f"could not be made on this node ({one_line(self.work_unchecked)[:200]}); install "
                                f"what it names, or grade under the emulator (--emu)")
        flagged = [r.case for r in report.results if r.timing_flagged]
        if flagged:
            report.notes.append(f"timing flagged on {', '.join(flagged)}: the program's own figures disagree "
                                f"with what the grader observed; look at these by hand")
        if self.sanitize:
            sanitize.SanitizerStep(self).run(build.programs, report)
        return report

    def _plans(self, case: Case) -> list[RunPlan]:
        return plans_for(self.lab, case, emu=self.emu, checks=self.checks,
                         gpus=0 if self.emu else gpu_count())

    def _right_on_one_device(self, case: Case, program: Path, ready, passed: list[RunPlan], failed: RunPlan) -> bool:
        """Whether a multi-device program that went wrong on several devices is right on one: then
        the mistake is in what the devices share. A GPU node's own single GPU may have answered it
        already (the first run); under the emulator one more run on 1 device does."""
        if failed.devices is None or failed.devices < 2:
            return False
        if any(plan.devices == 1 and not plan.emulated_devices for plan in passed):  # a GPU node's one GPU
            return True
        if not self.emu:
            return False
        outcome, output, _ = self._run(program, ready, self.work, env={"CUDA_EMU_DEVICES": "1", "EMU_PROFILE": "0"})
        verdict, _ = judge(self.lab, ready, outcome, output)
        output.remove()
        return verdict == AC

    def _work_on_gpu_node(self, case: Case, ready: ReadyCase, reason: str) -> tuple[str, str]:
        """On a GPU node, lab.toml's [work] judged on the case run once more under the emulated
        build, with the race detector (on the most devices the lab grades, for a multi-device
        program); GPU-sized cases (group large) are left to the timing thresholds. (AC, reason)
        when met."""
        if not self.lab.work.active or case.group == LARGE:
            return AC, reason
        build = self._emulated()
        if not build.ok and build.grader_error:
            # The node lacks what the emulator needs: the grader's failing, not the student's.
            # The case keeps its verdict; the report says the work was not checked.
            self.work_unchecked = build.reason
            return AC, reason
        if not build.ok:
            return CE, one_line(self._short(f"{EMULATED_BUILD_FAILED} for the check of the lab's work: "
                                            f"{build.reason[:200]}"))
        binary = build.programs[case.program]
        env = {"EMU_RACECHECK": "1"}  # a lost update that happened to come out right on the GPU is named here
        if case.program in self.lab.multi_device_programs and self.lab.device_counts:
            env["CUDA_EMU_DEVICES"] = str(max(self.lab.device_counts))
        slow = ReadyCase(dataclasses.replace(case, time_limit_s=case.time_limit_s * sanitize.SLOWDOWN),
                         ready.input_path, ready.expected_path)
        outcome, output, _ = self._run(binary, slow, self.work.with_name(self.lab.id + "-work"), env=env)
        verdict, why = judge(self.lab, slow, outcome, output)
        if verdict == AC:
            verdict, why = work_verdict(self.lab, slow, env, output.read_profile())
        output.remove()
        if verdict == AC:
            return AC, reason
        if verdict == work_rules.WORK:
            return verdict, one_line(self._short(f"{why} (the emulated run that checks the lab's work)"))
        # Right on the GPU, wrong under the emulator: the emulator's checks say why, as for [sanitize].
        return verdict, one_line(self._short(f"under the emulator, which checks the lab's work: {why}"))

    def _emulated(self, asan: bool = False) -> BuildResult:
        """The emulated build of the source on a GPU node (once per ASan setting)."""
        if asan not in self._emulated_builds:
            self._emulated_builds[asan] = build_lab(self.lab, src_root=self.source.root, emu=True, asan=asan,
                                                    build_dir=build_dir_for(self.source, True, asan),
                                                    sandbox=self.sandbox)
        return self._emulated_builds[asan]

    def _profiled_run(self, binary: Path, ready: ReadyCase, env: dict[str, str]):
        """The case run with the kernel profile on, judged, its work too: (outcome, output, figures,
        verdict, reason). First within the case's own limit; past it, a plain run within that
        limit tells a program that never ends (TLE: two limits spent, not PROFILE_SLOWDOWN) from
        one the profile slowed (every access is logged and regrouped), which then runs profiled
        again with PROFILE_SLOWDOWN times the limit."""
        outcome, output, figures = self._run(binary, ready, self.work, env=env)
        verdict, reason = judge(self.lab, ready, outcome, output)
        if verdict == TLE:
            self._done_with(output)
            outcome, output, figures = self._run(binary, ready, self.work, env={**env, "EMU_PROFILE": "0"})
            verdict, reason = judge(self.lab, ready, outcome, output)
            if verdict != AC:
                return outcome, output, figures, verdict, reason
            self._done_with(output)
            slower = ReadyCase(dataclasses.replace(ready.case, time_limit_s=ready.case.time_limit_s * PROFILE_SLOWDOWN),
                               ready.input_path, ready.expected_path)
            outcome, output, figures = self._run(binary, slower, self.work, env=env)
            verdict, reason = judge(self.lab, slower, outcome, output)
        if verdict == AC:  # a reason that says more than "correct" (a flood's note) stays
            work, why = work_verdict(self.lab, ready, env, output.read_profile())
            if work != AC:
                verdict, reason = work, why
        return outcome, output, figures, verdict, reason

    def _done_with(self, output: CaseOutput) -> None:
        if self.keep_outputs:
            os.close(output.folder_fd)
        else:
            output.remove()

    def _grade_case(self, case: Case, program: Path, reference: dict, timing: ReferenceTiming) -> CaseResult:
        try:
            ready = self._prepare(case)
        except ConfigError as e:  # a case file the kit cannot make or trust: not the student's
            return CaseResult(case.name, IE, one_line(f"grader error, not yours: {e}"), 0.0, case.points)
        first, passed, where = None, [], []
        for plan in self._plans(case):
            label = plan.label
            build = self._emulated() if plan.emulated_build else None
            if build is not None and not build.ok:
                if build.grader_error:
                    verdict, reason = IE, one_line(build.reason)
                else:  # not a pass: code that will not build there would dodge the runs
                    verdict, reason = CE, one_line(self._short(f"{EMULATED_BUILD_FAILED} for the run {label}: "
                                                              f"{build.reason[:200]}"))
                break
            binary = build.programs[case.program] if build is not None else program
            # The lab's work is judged on the first run's profile.
            profiled = self.emu and first is None and self.lab.work.active
            if profiled:
                outcome, output, figures, verdict, reason = self._profiled_run(binary, ready, plan.env)
            else:
                outcome, output, figures = self._run(binary, ready, self.work, env={**plan.env, "EMU_PROFILE": "0"})
                verdict, reason = judge(self.lab, ready, outcome, output)
            self._done_with(output)
            if first is None:
                first, first_reason = (outcome, figures), reason
            if plan.where:  # which devices it ran on is said even when correct
                where.append(plan.where)
            if verdict != AC:
                if verdict == WA and self._right_on_one_device(case, program, ready, passed, plan):
                    reason += "; right on 1 device: is what the devices exchange, or the rows each one owns, wrong?"
                reason = one_line(self._short(f"{reason} ({label})" if label else reason))
                break
            passed.append(plan)
        else:
            where = list(dict.fromkeys(where))
            reason = one_line(f"{first_reason} ({', '.join(where)})" if where else first_reason)
            if not self.emu:  # a GPU run has no profile: the lab's work is judged on an emulated run
                verdict, reason = self._work_on_gpu_node(case, ready, reason)
        outcome, figures = first
        points = case.points if verdict == AC else case.points * self.lab.work.credit if verdict == work_rules.WORK else 0.0
        result = CaseResult(case.name, verdict, reason, points, case.points, outcome.wall_s, figures)
        doubts = honest_timing.figure_doubts(figures, outcome) if verdict == AC else []
        if doubts:
            result.timing_flagged = True
            result.timing_note = "timing flagged: " + "; ".join(doubts)
        if verdict == AC and case.timed:
            timing.apply(result, outcome, reference.get(case.name))
        return result
