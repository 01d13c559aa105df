"""The runs one case gets, as data: on how many devices (a GPU node's own, or the emulator's),
with which of the emulator's checks, from which build. The grader builds the list once per case
(plans_for) and reads the fields back; the words a reason says of a run (label) are made from
them, never read back.

    one-device program, on a GPU        [the run]
    under the emulator, checks on       [race detector] then [race detector, threads in a random order]
    multi-device program, emulator      [on 2 emulated devices, ...] [on 3 ..., without peer access] + the random order
    multi-device program, GPU node      [on the node's GPUs] + [on n emulated devices] for each n it lacks
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from grader.labs import Case, Lab


@dataclass(frozen=True)
class RunPlan:
    devices: int | None = None  # a multi-device program's device count; None: the program's own choice
    emulated_devices: bool = False  # the devices are the emulator's (CUDA_EMU_DEVICES)
    peer_access: bool = True
    racecheck: bool = False  # the emulator's race detector (EMU_RACECHECK=1)
    schedule_seed: int | None = None  # the emulator runs the threads in a random order
    emulated_build: bool = False  # runs the emulated build (a GPU node's runs beyond its GPUs)
    env: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        env = {}
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
    def where(self) -> str:
        """The devices it ran on, as a reason says it ("on 2 GPUs"); '' for a one-device program."""
        if self.devices is None:
            return ""
        if self.emulated_devices:
            return f"on {self.devices} emulated devices" + ("" if self.peer_access else " without peer access")
        return f"on {self.devices} GPU{'s' if self.devices != 1 else ''}"

    @property
    def label(self) -> str:
        """What a reason says of this run; '' for the plain one."""
        order = f"threads in a random order (EMU_SCHEDULE=random:{self.schedule_seed})" \
            if self.schedule_seed is not None else ""
        return ", ".join(part for part in (self.where, order) if part)


def schedule_seed(lab: Lab, case: Case) -> int:
    """The random order's seed: the same for a case on every machine, so a failure repeats."""
    return zlib.crc32(f"{lab.id}/{case.name}".encode()) % 1000 + 1


def plans_for(lab: Lab, case: Case, *, emu: bool, checks: bool, gpus: int) -> list[RunPlan]:
    """The runs of one case, in order: the first decides timing; every one must be right."""
    racecheck = emu and checks
    plans = [RunPlan(racecheck=racecheck)]
    if case.program in lab.multi_device_programs:
        def emulated(n: int, on_gpu_node: bool) -> RunPlan:
            return RunPlan(devices=n, emulated_devices=True, peer_access=n not in lab.no_peer_counts,
                           racecheck=racecheck, emulated_build=on_gpu_node)
        if emu:
            plans = [emulated(n, False) for n in lab.device_counts]
        else:
            # Too few GPUs here to exercise the exchange: the emulator runs it on more.
            plans = [RunPlan(devices=gpus)] + [emulated(n, True) for n in lab.device_counts if n > gpus]
    if emu and checks:
        last = plans[-1]
        plans.append(RunPlan(devices=last.devices, emulated_devices=last.emulated_devices,
                             peer_access=last.peer_access, racecheck=last.racecheck,
                             schedule_seed=schedule_seed(lab, case), emulated_build=last.emulated_build))
    return plans
