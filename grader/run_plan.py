"""Every run of a case, as data, made here and nowhere else; case_run.CaseRunner runs any of them.

A plan says what to run (which build), how (devices, the emulator's checks and profile, a
supervising tool, the GPU's own record, its time limit as a multiple of the case's) and what its
outcome decides (purpose). The grader reads the fields back; the words a reason says of a run
(label) are made from them, never read back.

    purpose      decides                                   made by
    GRADE        the case's verdict; the first one's        case_plans: one-device program [the run];
                 figures are timed                          emulator with checks [race detector] then
                                                            [race detector, threads in a random order];
                                                            multi-device program [on 2, 3 emulated
                                                            devices ...] or, on a GPU node, [on its
                                                            GPUs] + [on n emulated devices] it lacks
    PROFILED     a GRADE run past its limit under the       profile_retries: the plain run within the
                 profile: a hang or a slowed program        limit, then the profile with PROFILE_SLOWDOWN
    WORK         on a GPU node, the lab's work: the case    work_plan, evidence_plan
                 under the emulated build, profiled; its
                 profile is held against the GPU run's
                 own record (GRADE with gpu_record)
    COUNTERS     the GPU's counters of the case's kernels   counters_plan
    DIAGNOSE     a hint in a reason, never a verdict        one_device_plan
    SANITIZE     a checker's finding                        sanitize_plans
    REFERENCE    the reference solution's time and figures  reference_plans, timing_plan; the GPU
                 (the runner runs its build), and whether   evidence's check that the record can be
                 the GPU record can be taken here           taken (evidence/grading.py)
    (again)      a SLOW case on a GPU timed once more:      retime_plans
                 the reference, then the first GRADE run
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace

from grader.labs import LARGE, Case, Lab

GRADE, PROFILED, WORK, COUNTERS, DIAGNOSE, SANITIZE, REFERENCE = (
    "grade", "profiled", "work", "counters", "diagnose", "sanitize", "reference")
GRADED, EMULATED, EMULATED_ASAN = "graded", "emulated", "emulated-asan"  # which build a plan runs

PROFILE_SLOWDOWN = 3  # a slow profiled run's second limit, times the case's (make emu-bench measures the cost)
CHECKED_SLOWDOWN = 20  # a run under compute-sanitizer or AddressSanitizer, times the case's limit, at most
COUNTERS_SLOWDOWN = 10  # Nsight Compute replays each kernel of a small case for its counters


@dataclass(frozen=True)
class RunPlan:
    purpose: str = GRADE
    build: str = GRADED
    devices: int | None = None  # a multi-device program's device count; None: the program's own choice
    emulated_devices: bool = False  # the devices are the emulator's (CUDA_EMU_DEVICES)
    peer_access: bool = True
    racecheck: bool = False  # the emulator's race detector (EMU_RACECHECK=1)
    schedule_seed: int | None = None  # the emulator runs the threads in a random order
    profile: bool = False  # the emulator writes its profile; the lab's work is judged from it
    time_factor: float = 1.0  # the run's time limit, times the case's
    sanitizer: str | None = None  # compute-sanitizer's tool around the program
    gpu_record: bool = False  # the GPU run's own record of launches and copies (grader/evidence)
    counters: bool = False  # the run under Nsight Compute, for each kernel's memory traffic
    env: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        env = {}  # the emulator's profile (EMU_PROFILE) the runner names where `profile` asks for it
        if self.racecheck:
            env["EMU_RACECHECK"] = "1"
        if self.emulated_devices:
            env["CUDA_EMU_DEVICES"] = str(self.devices)
            if not self.peer_access:
                env["CUDA_EMU_PEER_ACCESS"] = "0"
        if self.schedule_seed is not None:
            env["EMU_SCHEDULE"] = f"random:{self.schedule_seed}"
        object.__setattr__(self, "env", env)

    @property
    def emulated(self) -> bool:
        return self.build != GRADED

    @property
    def device_count(self) -> int:
        """The devices the program saw, as the lab's work checks count them."""
        return self.devices or 1

    @property
    def where(self) -> str:
        """The devices it ran on, as a reason says it ("on 2 GPUs"); '' for a one-device program."""
        if self.devices is None:
            return ""
        if self.emulated_devices:
            return f"on {self.devices} emulated devices" + ("" if self.peer_access else " without peer access")
        return f"on {self.devices} GPU{'s' if self.devices != 1 else ''}"

    @property
    def named(self) -> str:
        """The run as a build failure's reason names it."""
        if self.purpose == WORK:
            return "the check of the lab's work"
        if self.purpose == SANITIZE:
            return "the emulator's checks"
        return f"the run {self.label or 'on the emulator'}"

    @property
    def label(self) -> str:
        """What a reason says of this run; '' for the plain one."""
        order = f"threads in a random order (EMU_SCHEDULE=random:{self.schedule_seed})" \
            if self.schedule_seed is not None else ""
        return ", ".join(part for part in (self.where, order) if part)


def schedule_seed(lab: Lab, case: Case) -> int:
    """The random order's seed: the same for a case on every machine, so a failure repeats."""
    return zlib.crc32(f"{lab.id}/{case.name}".encode()) % 1000 + 1


def judges_work_on_gpu(lab: Lab, case: Case) -> bool:
    """On a GPU node the lab's work is judged on every case but the GPU-sized ones (group large,
    left to the timing thresholds: the emulator would take hours)."""
    return lab.work.active and case.group != LARGE


def case_plans(lab: Lab, case: Case, *, emu: bool, checks: bool, gpus: int) -> list[RunPlan]:
    """The GRADE runs of one case, in order: the first decides timing and carries the evidence
    of the lab's work (under the emulator its profile; on a GPU its own record); every one must
    be right."""
    racecheck = emu and checks
    plans = [RunPlan(racecheck=racecheck)]
    if case.program in lab.multi_device_programs:
        def emulated(n: int, on_gpu_node: bool) -> RunPlan:
            return RunPlan(devices=n, emulated_devices=True, peer_access=n not in lab.no_peer_counts,
                           racecheck=racecheck, build=EMULATED if on_gpu_node else GRADED)
        if emu:
            plans = [emulated(n, False) for n in lab.device_counts]
        else:
            # Too few GPUs here to exercise the exchange: the emulator runs it on more.
            plans = [RunPlan(devices=gpus)] + [emulated(n, True) for n in lab.device_counts if n > gpus]
    if emu and checks:
        plans.append(replace(plans[-1], schedule_seed=schedule_seed(lab, case)))
    if emu:
        plans[0] = replace(plans[0], profile=lab.work.active)
    else:
        timed = case.timed and lab.evidence.timing is not None
        plans[0] = replace(plans[0], gpu_record=judges_work_on_gpu(lab, case) or timed)
    return plans


def timing_plan(first: RunPlan) -> RunPlan:
    """The reference solution's run that gives a timed case its figure: as the student's first
    GRADE run is made (the GPU record's tracer too, so that both are timed under it)."""
    return replace(first, purpose=REFERENCE)


def retime_plans(first: RunPlan) -> tuple[RunPlan, RunPlan]:
    """A timed case that came out SLOW on a GPU (case_grade.CaseGrader._time_again): the
    reference's figure taken again, then the student's first GRADE run again, right after it."""
    return timing_plan(first), first


def profile_retries(plan: RunPlan) -> list[RunPlan]:
    """A profiled run past the case's limit: first the same run without the profile, within that
    limit (a program that never ends is TLE there, two limits spent), then, if that one ends, the
    profile again with PROFILE_SLOWDOWN times the limit (every access is logged and regrouped)."""
    return [replace(plan, purpose=PROFILED, profile=False),
            replace(plan, purpose=PROFILED, time_factor=plan.time_factor * PROFILE_SLOWDOWN)]


def work_plan(lab: Lab, case: Case, gpu_run: RunPlan) -> RunPlan:
    """On a GPU node: the case once more under the emulated build, profiled, with the race
    detector (a lost update that happened to come out right on the GPU is named there). A
    multi-device program runs on as many devices as the GPU run had, so that the two records can
    be held against each other; on a node of one GPU, on the most the lab grades (every device
    must work: evidence_plan then makes the one-device run the record is held against)."""
    devices = None
    if case.program in lab.multi_device_programs and lab.device_counts:
        devices = gpu_run.devices if (gpu_run.devices or 0) >= 2 else max(lab.device_counts)
    # The limit a grading under the emulator gives its own profiled run after a time-out (the cases'
    # limits are set for the emulator: CI grades every lab under it).
    return RunPlan(purpose=WORK, build=EMULATED, devices=devices, emulated_devices=devices is not None,
                   racecheck=True, profile=True, time_factor=PROFILE_SLOWDOWN)


def evidence_plan(work: RunPlan, gpu_run: RunPlan) -> RunPlan | None:
    """The emulated run the GPU record is held against, where the WORK run had other devices than
    the GPU run (a multi-device program on a node of one GPU); None where the WORK run serves."""
    if work.devices == gpu_run.devices:
        return None
    return replace(work, devices=gpu_run.devices, emulated_devices=gpu_run.devices is not None, racecheck=False)


def counters_plan(gpu_run: RunPlan) -> RunPlan:
    """The GPU run again under Nsight Compute: each kernel's global load and store sectors."""
    return replace(gpu_run, purpose=COUNTERS, gpu_record=False, counters=True, time_factor=COUNTERS_SLOWDOWN)


def one_device_plan(failed: RunPlan) -> RunPlan | None:
    """After a multi-device run went wrong under the emulator: the same on one emulated device,
    whose answer says whether the mistake is in what the devices share."""
    if failed.devices is None or failed.devices < 2 or not failed.emulated_devices:
        return None
    return RunPlan(purpose=DIAGNOSE, build=failed.build, devices=1, emulated_devices=True)


def sanitize_plans(lab: Lab, tools: list[str]) -> list[RunPlan]:
    """On a GPU: each compute-sanitizer tool on the graded build, then, where lab.toml asks
    (emulator_checks), the emulated build with AddressSanitizer and the race detector."""
    plans = [RunPlan(purpose=SANITIZE, sanitizer=tool, time_factor=CHECKED_SLOWDOWN) for tool in tools]
    if lab.sanitize.emulator_checks:
        plans.append(RunPlan(purpose=SANITIZE, build=EMULATED_ASAN, racecheck=True, time_factor=CHECKED_SLOWDOWN))
    return plans


def reference_plans(lab: Lab, case: Case, *, emu: bool, checks: bool, gpus: int) -> list[RunPlan]:
    """The reference solution's runs of a case for its wall time, as the student's GRADE runs are
    made (the random-order pass can be the slowest), without the emulated build's runs."""
    return [replace(plan, purpose=REFERENCE, profile=False, gpu_record=False)
            for plan in case_plans(lab, case, emu=emu, checks=checks, gpus=gpus) if not plan.emulated]


def plans_for(lab: Lab, case: Case, *, emu: bool, checks: bool, gpus: int) -> list[RunPlan]:
    """Every plan a grading may make of one case, in the order it may run them: the GRADE runs,
    a profiled run's retries, the GPU node's WORK and COUNTERS runs, a SLOW case's second timing.
    The grading's budget (grader/budget.py) is summed from these."""
    plans = case_plans(lab, case, emu=emu, checks=checks, gpus=gpus)
    extra = []
    if plans[0].profile:
        extra += profile_retries(plans[0])
    if plans[0].gpu_record and judges_work_on_gpu(lab, case):
        work = work_plan(lab, case, plans[0])
        extra += [work, *filter(None, [evidence_plan(work, plans[0])]), counters_plan(plans[0])]
    if not emu and case.timed and lab.timing.slow_factor > 0:  # SLOW only on a GPU
        extra += retime_plans(plans[0])
    return plans + extra
