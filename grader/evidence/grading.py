"""The GPU run's evidence in a grading: what grade.py asks of this folder on a GPU node.

    grading_tracer()                            the tracer, built before any submission runs; the
                                                grading's runners load it into each run whose plan
                                                asks for a record
    GpuEvidence(lab, runner, tracer)            once per grading (tracer None: no evidence taken)
    .judge(case, ready, gpu_run, emulated_run)  '' when the GPU run's own record (and, on the first
                                                small case of each program, its counters) shows the
                                                work the emulated run of the case did; else the
                                                difference, as a reason
    .timing_unbacked(case, gpu_run)             None when the record backs a timed case's figure
                                                (or the lab has no [evidence.timing]); else why not
    .notes()                                    what the report says of the evidence used

A missing or damaged record is the student's only where the grader's own instrument is shown to
work here: the reference solution's run of the same case, traced the same way, left a whole
record. Otherwise the record could not be taken on this node: the report says so, and the work
is judged on the emulated run alone, as before the record existed.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from grader.build import build_lock
from grader.evidence import counters as gpu_counters
from grader.evidence.compare import compare_records, kernels_in_nm
from grader.evidence.record import Record, RecordProblem, from_emulator_profile
from grader.evidence.timing import timed_repetitions, timing_backed
from grader.evidence.tracer_build import TracerBuild, build_tracer
from grader.labs import Case, Lab
from grader.run_plan import REFERENCE, RunPlan, counters_plan
from grader.text import one_line
from grader.work import case_options

if TYPE_CHECKING:
    from grader.case_run import CaseRunner


def grading_tracer() -> TracerBuild:
    """The tracer for a grading, built once (again only when tracer.cpp changed), under a lock:
    gradings side by side (a batch's workers) wait for one build."""
    with build_lock("evidence-tracer"):
        return build_tracer()


@dataclass
class GpuEvidence:
    """The GPU evidence of one grading. runner: the grading's (case_run.CaseRunner); tracer:
    grading_tracer()'s, None where no evidence is taken."""
    lab: Lab
    runner: "CaseRunner"
    tracer: TracerBuild | None
    _notes: dict[str, None] = field(default_factory=dict, init=False)  # in order, once each
    _kit_kernels: list[str] | None = field(default=None, init=False)
    _instrument_works: dict[str, bool] = field(default_factory=dict, init=False)  # by program: a CPU one leaves no record
    _counted_programs: set[str] = field(default_factory=set, init=False)

    @property
    def taken(self) -> bool:
        """Whether GPU runs are traced here: evidence asked for, and the tracer built."""
        return self.tracer is not None and self.tracer.path is not None

    def _note(self, text: str) -> None:
        self._notes[one_line(text)] = None

    def notes(self) -> list[str]:
        if self.tracer is not None and self.tracer.path is None:
            return [one_line(f"the GPU record was not taken: {self.tracer.reason}; the lab's work was judged on the "
                             f"emulated run alone")]
        return list(self._notes)

    # ---- the record against the emulated run ----------------------------------------------------
    def kit_kernels(self) -> list[str]:
        """The kernels the harness itself defines (its objects' nvcc host stubs), left out of the
        comparison: a GPU record names kernels, not their files."""
        if self._kit_kernels is None:
            found: list[str] = []
            build = self.runner.builds.graded()
            objects = sorted({p for program in build.programs.values()
                              for p in (program.parent.parent / "obj").rglob("*.o")})
            for obj in objects:
                try:
                    listing = subprocess.run(["nm", str(obj)], capture_output=True, text=True, timeout=60).stdout
                except (OSError, subprocess.TimeoutExpired):
                    continue
                found += [k for k in kernels_in_nm(listing) if k not in found]
            self._kit_kernels = found
        return self._kit_kernels

    def _instrument(self, ready, plan: RunPlan) -> bool:
        """Whether the tracer records a whole run of this case's program here: the reference
        solution's run of this case, traced as the student's was (once per program and grading:
        a lab's CPU program leaves no record, and must not turn the evidence off for the others)."""
        program = ready.case.program
        if program not in self._instrument_works:
            reference = replace(plan, purpose=REFERENCE)
            run = self.runner.run(reference, ready) if self.runner.build_for(reference).ok else None
            works = self._instrument_works[program] = run is not None and isinstance(run.record, Record)
            if not works:
                why = run.record.reason if run is not None and isinstance(run.record, RecordProblem) else \
                    "the reference solution did not build or run here"
                self._note(f"the GPU record of program {program} could not be taken on this node ({why}): its work "
                           f"was judged on the emulated run alone")
        return self._instrument_works[program]

    def judge(self, case: Case, ready, gpu_run, emulated_run) -> str:
        if not self.taken:
            return ""
        record = gpu_run.record
        if not isinstance(record, Record):
            if isinstance(record, RecordProblem) and record.kind == "incomplete":
                self._note(f"case {case.name}: {record.reason}; its work was judged on the emulated run alone")
                return ""
            if not self._instrument(ready, gpu_run.plan):
                return ""
            why = record.reason if isinstance(record, RecordProblem) else "no record"
            return f"the GPU run's own record cannot show its work ({why})"
        emulated = from_emulator_profile(emulated_run.profile or {})
        if isinstance(emulated, RecordProblem):
            self._note(f"case {case.name}: {emulated.reason}; the GPU record was not compared")
            return ""
        params = case_options(list(case.args), dict(case.params))
        launch_counts, geometry = self.lab.evidence.for_case(params, case.program)
        differences = compare_records(record, emulated, kit_kernels=self.kit_kernels(),
                                      launch_counts=launch_counts, geometry=geometry)
        if differences:
            more = f" (and {len(differences) - 1} more difference{'s' if len(differences) > 2 else ''}, on other " \
                f"devices or between them)" if len(differences) > 1 else ""
            return f"the GPU run's own record differs from the emulated run's: {differences[0]}{more}"
        self._note("evidence on the GPU: each case's own record (kernels, grids, copies) held against its emulated run")
        return self._counters(case, ready, gpu_run, emulated_run)

    def _counters(self, case: Case, ready, gpu_run, emulated_run) -> str:
        """Nsight Compute's global traffic of the first small case of each program, held against the
        emulated run's: a kernel with the right name and grid that skipped its work is seen here."""
        if not self.lab.evidence.counters or case.program in self._counted_programs:
            return ""
        self._counted_programs.add(case.program)
        permission = gpu_counters.counters_allowed()
        if not permission.allowed or getattr(self.runner.sandbox, "kind", "") == "user":
            self._note(permission.why if not permission.allowed else
                       "counters: not read (the sandbox user is not root): evidence from the GPU record alone")
            return ""
        run = self.runner.run(counters_plan(gpu_run.plan), ready)
        if not isinstance(run.counters, dict):
            self._note(f"counters: not read on case {case.name} ({run.counters or run.reason}): evidence from the "
                       f"GPU record alone")
            return ""
        differences = gpu_counters.compare_traffic(run.counters, gpu_counters.emulated_traffic(emulated_run.profile),
                                                   kit_kernels=self.kit_kernels())
        self._note(f"{permission.why}: each program's first small case's global memory traffic held against its "
                   f"emulated run")
        return f"the GPU's counters differ from the emulated run's: {differences[0]}" if differences else ""

    # ---- timing ----------------------------------------------------------------------------------
    def timing_unbacked(self, case: Case, gpu_run) -> str | None:
        rule = self.lab.evidence.timing
        if rule is None or not self.taken:
            return None
        params = case_options(list(case.args), dict(case.params))
        if not rule.applies(params, case.program) or rule.reps not in params:
            return None
        figure = gpu_run.figures.get(self.lab.timing.metric)
        record = gpu_run.record
        if not isinstance(record, Record) or not isinstance(figure, (int, float)):
            why = record.reason if isinstance(record, RecordProblem) else f"no {self.lab.timing.metric} reported"
            return f"the GPU record cannot back the figure ({why})"
        repetitions = timed_repetitions(record, reps=int(params[rule.reps]), warmups=rule.warmups,
                                        kit_kernels=self.kit_kernels())
        if isinstance(repetitions, str):
            return repetitions
        evidence = timing_backed(repetitions, float(figure), warmups=rule.warmups)
        return None if evidence.backed else evidence.reason

