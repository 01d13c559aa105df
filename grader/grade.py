"""The orchestrator: grades one source of one lab through the stages, in order.

    intake.py    1 the submission's own files, checked, copied to a folder with a safe name
    build.py     2 compiled in the build sandbox; forbidden library calls refused (symbols.py)
    run.py       3 each testcase run under limits (limits.py) in the run sandbox (sandbox.py)
    compare.py   4 the output, opened as program_files.py says, against the expected output
    verdict.py   5 determine_verdict(): a pure function of the run and the comparison
    report.py    6 the Report, and its formats (terminal, JSON, Gradescope, JUnit)

grader/CONTRACT.md says what a graded program sees, each limit and how it fails, and what each
verdict means; this file only wires the stages together, with the timing rules of lab.toml.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import zlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.build import BuildResult, build_lab, build_lock
from grader.cases import ReadyCase, argv_for, prepare
from grader.compare import compare_output, output_cap
from grader.gpu import gpu_count
from grader.labs import LARGE, PUBLIC, Case, Lab
from grader import KIT_VERSION
from grader.paths import BUILD_DIR, KIT_ROOT, LABS_DIR, SOLUTIONS_DIR
from grader import hidden, honest_timing, sanitize
from grader import work as work_rules
from grader.limits import LabLimits, Limits
from grader.program_files import open_folder, open_left, remove_tree
from grader.report import Report, write_atomically
from grader.run import RunOutcome, run_program
from grader.sandbox import Sandbox, clean_env, gpu_device_nodes, run_view, sandbox_for
from grader.text import one_line
from grader.verdict import AC, CE, IE, RE, SLOW, WA, CaseResult, determine_verdict, runtime_error

MAX_FIGURES_BYTES = 1 << 20  # the program's result file
MAX_PROFILE_BYTES = 64 << 20  # the emulator's profile (EMU_PROFILE)
PROFILE_SLOWDOWN = 3  # a profiled run's time limit, times the case's (make emu-bench measures the cost)
LIMIT_FACTOR, LIMIT_FLOOR_S = 50, 30.0  # a case's time limit against the reference's time
# On a GPU node the emulator runs what one GPU cannot show (several devices, its race detector):
# a submission must build there too, or a #error under CUDA_EMULATION would skip those runs.
EMULATED_BUILD_FAILED = "the emulated build (EMU=1) failed, and every submission must build under the emulator too"


@dataclass(frozen=True)
class Source:
    """The student files being graded: starter, solution, or a submission's folder. name is
    safe as a folder name and on a make command line (intake.safe_id made it)."""
    name: str  # "starter", "solution", "sub-<safe id>"
    root: Path


def build_dir_for(source: Source, emu: bool, asan: bool) -> Path:
    return BUILD_DIR / f"{'emu-' if emu else ''}{source.name}{'-asan' if asan else ''}"


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
    output stays outside and is compared after the process has gone."""
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
    wrap = None
    if sandbox is not None and sandbox.active:
        wrap = lambda argv, status_fd: sandbox.wrap(  # noqa: E731
            argv, work=folder, view=run_view(program, ready.input_path), hide=hide, gpu=gpu,
            tmp_bytes=case_limits.file_bytes, status_fd=status_fd)
    outcome = run_program(argv, time_limit_s=ready.case.time_limit_s, cwd=folder, env=env,
                          limits=case_limits, wrap=wrap)
    return outcome, output, output.read_figures()


def _metric(figures: dict, outcome: RunOutcome, metric: str) -> float | None:
    if metric == "wall_ms":
        return outcome.wall_s * 1000
    value = figures.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


def judge(lab: Lab, ready: ReadyCase, outcome: RunOutcome, output: CaseOutput) -> tuple[str, str]:
    """Correctness alone: (AC or WA or a run failure, reason). The output is compared only when
    the run ended normally; the verdict itself is verdict.determine_verdict's."""
    mismatch = None
    if runtime_error(outcome, ready.case.time_limit_s) is None:
        rule = ready.case.compare or lab.compare
        opened = open_left(output.folder_fd, output.name, output_cap(rule, ready.expected_path.stat().st_size),
                           not_same_as=(ready.expected_path,))
        try:
            mismatch = compare_output(ready.expected_path, opened, rule)
        finally:
            opened.close()
    return determine_verdict(outcome, ready.case.time_limit_s, mismatch)


def work_verdict(lab: Lab, ready: ReadyCase, env: dict[str, str], profile: dict | None) -> tuple[str, str]:
    """AC, or WORK with what the run did not do of the lab's work (lab.toml [work], grader/work.py)."""
    n, m = work_rules.header_sizes(ready.input_path)
    params = work_rules.case_options(list(ready.case.args), dict(ready.case.params))
    facts = work_rules.CaseFacts(ready.case.name, ready.case.program, params, n, m, int(env.get("CUDA_EMU_DEVICES", "1")))
    reason = work_rules.judge(lab.work, facts, profile)
    return (AC, "correct") if reason is None else (work_rules.WORK, one_line(f"not the lab's work: {reason}"))


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
        self.sandbox = sandbox if isinstance(sandbox, Sandbox) else sandbox_for(sandbox)
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
        self.reference_walls: dict[str, float] = {}

    def _short(self, reason: str) -> str:
        """A reason with the grader's own folders taken off the student's file names:
        'fw/fw.c:16', not 'build/unpacked/alice-1f2e3d4c/fw/fw.c:16'."""
        root = Path(self.source.root).resolve()
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
        hide = [BUILD_DIR]
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
        if self.sandbox.active:
            return [f"sandbox on (bubblewrap): no network, own PID namespace, only the case's input and "
                    f"work folder in view; {limits}"]
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
        reference = self._reference_metrics(report)
        limits = self._time_limits(report)
        for case in self.cases:
            case = dataclasses.replace(case, time_limit_s=limits.get(case.name, case.time_limit_s))
            result = self._grade_case(case, build.programs[case.program], reference, report)
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
            self._sanitize(build.programs, report)
        return report

    def _sanitize(self, programs: dict[str, Path], report: Report) -> None:
        """On a GPU, the lab's [sanitize] cases under compute-sanitizer (and the emulator's race
        checks where lab.toml asks); a finding turns that case from AC into RE."""
        if self.emu:
            report.notes.append("--sanitize needs a GPU: under the CPU emulator use --asan")
            return
        if sanitize.sanitizer() is None:
            report.notes.append("compute-sanitizer not found (it comes with the CUDA toolkit): memory and "
                                "race checks on the GPU skipped")
            return
        for case in sanitize.pick_cases(self.lab, self.cases):
            result = next(r for r in report.results if r.case == case.name)
            if result.verdict != AC:  # it has lost its points already: no need to spend minutes on why
                report.notes.append(f"sanitizer not run on case {case.name}: it is {result.verdict} already")
                continue
            # A sanitized or emulated run takes many times a plain one: the case's own limit, widened.
            ready = self._prepare(case)
            slow = ReadyCase(dataclasses.replace(case, time_limit_s=case.time_limit_s * sanitize.SLOWDOWN),
                             ready.input_path, ready.expected_path)
            found = [self._sanitizer_finding(tool, programs[case.program], slow) for tool in sanitize.tools(self.lab)]
            if self.lab.sanitize.emulator_checks:
                found.append(self._emulator_finding(slow))
            for finding in found:
                if finding.fault and result.verdict == AC:
                    # The output was right, but the code reads or writes where it must not, or races.
                    result.verdict, result.points = RE, 0.0
                    result.reason = one_line(self._short(f"{finding.text} (the GPU's output happened to be right)"))
            texts = "; ".join(finding.text for finding in found)
            if result.verdict == AC:
                result.reason += "; sanitizer: " + texts
            report.notes.append(f"sanitizer on case {case.name}: " + texts)

    def _sanitizer_finding(self, tool: str, program: Path, slow: ReadyCase) -> sanitize.Finding:
        self.log(f"  {slow.case.name}: compute-sanitizer --tool {tool} ...")
        outcome, output, _ = self._run(program, slow, self.work.with_name(self.lab.id + "-sanitize"),
                                       wrap_argv=lambda argv: sanitize.command(tool, argv))
        output.remove()
        if outcome.timed_out:
            return sanitize.Finding(f"compute-sanitizer {tool}: could not check "
                                    f"(did not finish within {slow.case.time_limit_s:g} s)", False)
        finding = sanitize.findings(tool, outcome.stdout, outcome.stderr)
        return sanitize.Finding(f"compute-sanitizer {finding.text}", finding.fault)

    def _emulator_finding(self, slow: ReadyCase) -> sanitize.Finding:
        """The case under the emulator's checks (lab.toml's emulator_checks): built with
        AddressSanitizer, run with the race detector on. It must run right there as on the GPU:
        the emulator is the kit's own, so no failure of it, a time-out included, is excused (code
        could otherwise loop or stop under CUDA_EMULATION to skip the checks)."""
        checker = "the emulator's checks"
        self.log(f"  {slow.case.name}: {checker} ...")
        binary, failure = self._emulated(slow.case.program, asan=True)
        if binary is None:
            return sanitize.Finding(f"{checker}: {EMULATED_BUILD_FAILED}: {failure[:200]}", True)
        outcome, output, _ = self._run(binary, slow, self.work.with_name(self.lab.id + "-sanitize"),
                                       env={"EMU_RACECHECK": "1", "EMU_PROFILE": "0"})
        verdict, reason = judge(self.lab, slow, outcome, output)
        output.remove()
        if verdict == AC:
            return sanitize.Finding(f"{checker}: no errors", False)
        if verdict == WA:  # right on the GPU, wrong with the threads in the emulator's order
            return sanitize.Finding(f"{checker}: wrong when the emulator runs the threads one after another "
                                    f"({reason}): a __syncthreads() missing?", True)
        return sanitize.Finding(f"{checker} (ASan, race detector): {reason}", True)

    def _runs(self, case: Case) -> list[tuple[str, dict[str, str], bool]]:
        """The runs one case gets, in order: (what the reason says of it, its environment, whether
        it runs the emulated build). The first decides timing; every one must be right."""
        checked = {"EMU_RACECHECK": "1"} if self.emu and self.checks else {}
        runs = [("", checked, False)]
        if case.program in self.lab.multi_device_programs:
            if self.emu:
                runs = [self._emulated_devices(n, checked, False) for n in self.lab.device_counts]
            else:
                gpus = gpu_count()
                runs = [(f"on {gpus} GPU{'s' if gpus != 1 else ''}", {}, False)]
                if gpus < max(self.lab.device_counts, default=0):
                    # Too few GPUs here to exercise the exchange: the emulator runs it on more.
                    runs += [self._emulated_devices(n, {}, True) for n in self.lab.device_counts if n > gpus]
        if self.emu and self.checks:
            seed = zlib.crc32(f"{self.lab.id}/{case.name}".encode()) % 1000 + 1
            label, env, emulated = runs[-1]
            order = f"threads in a random order (EMU_SCHEDULE=random:{seed})"
            runs.append((f"{label}, {order}" if label else order, {**env, "EMU_SCHEDULE": f"random:{seed}"}, emulated))
        return runs

    def _emulated_devices(self, n: int, env: dict[str, str], emulated: bool) -> tuple[str, dict[str, str], bool]:
        """A run on n emulated devices; without peer access where lab.toml says so, so that the
        program's path through the host runs too."""
        env = {**env, "CUDA_EMU_DEVICES": str(n)}
        if n in self.lab.no_peer_counts:
            return f"on {n} emulated devices without peer access", {**env, "CUDA_EMU_PEER_ACCESS": "0"}, emulated
        return f"on {n} emulated devices", env, emulated

    def _right_on_one_device(self, case: Case, program: Path, ready, passed: list[str], failed: str) -> bool:
        """Whether a multi-device program that went wrong on several devices is right on one: then
        the mistake is in what the devices share. A GPU node's own single GPU may have answered it
        already (the first run); under the emulator one more run on 1 device does."""
        devices = re.match(r"on (\d+) ", failed)
        if case.program not in self.lab.multi_device_programs or not devices or int(devices[1]) < 2:
            return False
        if "on 1 GPU" in passed:  # the first run, which went right
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
        binary, failure = self._emulated(case.program)
        if binary is None and self._emulated_builds[False].grader_error:
            # The node lacks what the emulator needs (Boost.Context): the grader's failing, not the
            # student's. The case keeps its verdict; the report says the work was not checked.
            self.work_unchecked = failure
            return AC, reason
        if binary is None:
            return CE, one_line(self._short(f"{EMULATED_BUILD_FAILED} for the check of the lab's work: {failure[:200]}"))
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

    def _emulated(self, program: str, asan: bool = False) -> tuple[Path | None, str]:
        """A program's emulated build on a GPU node, or None and why the build failed."""
        if asan not in self._emulated_builds:
            self._emulated_builds[asan] = build_lab(self.lab, src_root=self.source.root, emu=True, asan=asan,
                                                    build_dir=build_dir_for(self.source, True, asan),
                                                    sandbox=self.sandbox)
        build = self._emulated_builds[asan]
        return (build.programs.get(program), "") if build.ok else (None, build.reason)

    def _grade_case(self, case: Case, program: Path, reference: dict, report: Report) -> CaseResult:
        ready = self._prepare(case)
        first, labels = None, []
        for label, env, emulated in self._runs(case):
            binary, failure = self._emulated(case.program) if emulated else (program, "")
            if binary is None:  # not a pass: code that will not build there would dodge the runs
                verdict, reason = CE, one_line(self._short(f"{EMULATED_BUILD_FAILED} for the run {label}: {failure[:200]}"))
                break
            # The lab's work is judged on the first run's profile, which may take PROFILE_SLOWDOWN
            # times as long (a barrier-heavy kernel's every access is logged and regrouped).
            profiled = self.emu and first is None and self.lab.work.active
            run_ready = ready if not profiled else ReadyCase(
                dataclasses.replace(case, time_limit_s=case.time_limit_s * PROFILE_SLOWDOWN), ready.input_path,
                ready.expected_path)
            outcome, output, figures = self._run(binary, run_ready, self.work,
                                                 env=env if profiled else {**env, "EMU_PROFILE": "0"})
            verdict, reason = judge(self.lab, run_ready, outcome, output)
            if verdict == AC and profiled:
                verdict, reason = work_verdict(self.lab, ready, env, output.read_profile())
            if self.keep_outputs:
                os.close(output.folder_fd)
            else:
                output.remove()
            if first is None:
                first, first_reason = (outcome, figures), reason
            if label.startswith("on "):  # which devices it ran on is said even when correct
                labels.append(label.split(",")[0])
            if verdict != AC:
                if verdict == WA and self._right_on_one_device(case, program, ready, labels, label):
                    reason += "; right on 1 device: is what the devices exchange, or the rows each one owns, wrong?"
                reason = one_line(self._short(f"{reason} ({label})" if label else reason))
                break
        else:
            labels = list(dict.fromkeys(labels))
            reason = one_line(f"{first_reason} ({', '.join(labels)})" if labels else first_reason)
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
            self._apply_timing(result, outcome, reference.get(case.name))
        return result

    def _mark_slow(self, result: CaseResult, why: str) -> None:
        """Correct but over a timing threshold: the lab's partial credit."""
        result.verdict = SLOW
        result.reason = f"correct but slow: {why}"
        result.points = result.max_points * self.lab.timing.slow_credit

    def _apply_margins(self, result: CaseResult) -> bool:
        """lab.toml's [margins]: a figure the program reports must not pass its cap (matmul:
        the tiled kernel's time over the naive one's, both timed in the same run). True if SLOW."""
        for figure, most in self.lab.margins.items():
            value = result.figures.get(figure)
            if isinstance(value, (int, float)) and value > most:
                self._mark_slow(result, f"{figure} is {value:.3f}, over the {most:g} that lab.toml's [margins] allows")
                return True
            if isinstance(value, (int, float)):
                result.timing_note = f"{figure} {value:.3f} within the margin {most:g}"
        return False

    def _apply_timing(self, result: CaseResult, outcome: RunOutcome, reference_value: float | None) -> None:
        timing = self.lab.timing
        if not self.emu and self._apply_margins(result):
            return
        skipped = ("timing threshold skipped: CPU emulation (EMU=1)" if self.emu else
                   "the reference solution: no threshold against itself" if self.source.name == "solution"
                   else "" if timing.slow_factor <= 0 else None)
        if skipped is not None:
            result.timing_note = "; ".join(filter(None, (result.timing_note, skipped)))
            return
        value = _metric(result.figures, outcome, timing.metric)
        reference_wall = self.reference_walls.get(result.case)
        if value is None or result.timing_flagged:
            # The program's own figure is missing or not to be trusted: the grader's clock decides.
            slow, how = honest_timing.judged_on_wall(outcome.wall_s, reference_wall, timing.slow_factor)
            result.timing_flagged = True
            result.timing_note = (result.timing_note or f"timing flagged: no {timing.metric} reported") + "; " + how
            if slow:
                self._mark_slow(result, how)
            return
        if reference_value is None:
            result.timing_note = "the reference solution gave no timing; timing not checked"
            return
        limit = timing.slow_factor * reference_value
        result.timing_note = (f"{timing.metric} {value:.3f} vs limit {limit:.3f} "
                              f"({timing.slow_factor:g} x reference {reference_value:.3f})")
        doubt = reference_wall and honest_timing.wall_doubt(timing.metric, value, limit, outcome.wall_s,
                                                            reference_wall, timing.slow_factor)
        if doubt:
            result.timing_flagged = True
            result.timing_note = f"timing flagged: {doubt}"
            value = limit + 1  # the grader's clock says slow
        if value > limit:
            self._mark_slow(result, result.timing_note)

    def _time_limits(self, report: Report) -> dict[str, float]:
        """Each case's time limit from the reference solution's time on this machine, in this
        flavor: LIMIT_FACTOR times it, at least LIMIT_FLOOR_S, at most the case's own limit. A
        program that loops forever then costs seconds, not the minute a GPU-sized case allows.
        The reference's times are measured once and kept in build/reference-walls/."""
        if self.source.name == "solution" or not (SOLUTIONS_DIR / self.lab.id).is_dir():
            return {}
        key = hashlib.sha256(json.dumps([KIT_VERSION, self.emu, self.asan, self.checks,
                                         [dataclasses.astuple(c)[:6] for c in self.cases]]).encode())
        for path in sorted((SOLUTIONS_DIR / self.lab.id).glob("*.c")) + sorted((LABS_DIR / self.lab.id).glob("*.c*")):
            key.update(path.read_bytes())
        cache = BUILD_DIR / "reference-walls" / f"{self.lab.id}-{key.hexdigest()[:16]}.json"
        # One grading measures, under a lock; gradings side by side (a batch) wait and read it.
        with build_lock(f"reference-walls-{cache.stem}"):
            try:
                walls = json.loads(cache.read_text())
            except (OSError, ValueError):
                walls = self._measure_reference_walls()
                if walls:
                    cache.parent.mkdir(parents=True, exist_ok=True)
                    write_atomically(cache, json.dumps(walls) + "\n")
        limits = {c.name: min(c.time_limit_s, max(LIMIT_FLOOR_S, LIMIT_FACTOR * walls[c.name]))
                  for c in self.cases if c.name in walls}
        if limits:
            report.notes.append(f"time limits: {LIMIT_FACTOR} x the reference solution's time here, at least "
                                f"{LIMIT_FLOOR_S:g} s, at most the case's own")
        return limits

    def _measure_reference_walls(self) -> dict[str, float]:
        """The reference solution's wall time on each case, run as the student's will be."""
        solution = Source("solution", SOLUTIONS_DIR)
        build = build_lab(self.lab, src_root=solution.root, build_dir=build_dir_for(solution, self.emu, self.asan),
                          emu=self.emu, asan=self.asan, sandbox=self.sandbox)
        if not build.ok:
            return {}
        walls = {}
        for case in self.cases:
            ready = self._prepare(case)
            slowest = 0.0
            for _, env, emulated in self._runs(case):  # the random-order pass can be the slowest
                if emulated:
                    continue
                outcome, output, _ = self._run(build.programs[case.program], ready,
                                               self.work.with_name(self.lab.id + "-reference"),
                                               env={**env, "EMU_PROFILE": "0"})
                output.remove()
                if runtime_error(outcome, case.time_limit_s) is not None:
                    break
                slowest = max(slowest, outcome.wall_s)
            else:
                walls[case.name] = slowest
        return walls

    def _reference_metrics(self, report: Report) -> dict[str, float]:
        """The reference solution's figure for each timed case, measured in this same run."""
        timed = [c for c in self.cases if c.timed]
        if not timed or self.lab.timing.slow_factor <= 0:
            return {}
        if self.emu:
            report.notes.append("timing thresholds are skipped under CPU emulation (EMU=1)")
            return {}
        solution = Source("solution", SOLUTIONS_DIR)
        if self.source.name == solution.name:
            return {}  # the reference is not timed against itself
        if not (solution.root / self.lab.id).is_dir():
            report.notes.append(f"no reference solution in this copy of the kit (solutions/{self.lab.id} is "
                                f"missing, as in the student edition): timing thresholds not checked")
            return {}
        build = build_lab(self.lab, src_root=solution.root, build_dir=build_dir_for(solution, False, False),
                          emu=False, sandbox=self.sandbox)
        if not build.ok:
            report.notes.append(f"the reference solution did not build ({build.reason}); timing not checked")
            return {}
        metrics = {}
        for case in timed:
            ready = self._prepare(case)
            outcome, output, figures = self._run(build.programs[case.program], ready,
                                                 self.work.with_name(self.lab.id + "-reference"))
            output.remove()
            value = _metric(figures, outcome, self.lab.timing.metric)
            if value is not None and runtime_error(outcome, case.time_limit_s) is None:
                metrics[case.name] = value
                self.reference_walls[case.name] = outcome.wall_s
        return metrics
