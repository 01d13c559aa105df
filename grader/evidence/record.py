"""The record of what a run did on its devices, in one shape for a GPU run and an emulated one.

    read_record(path) -> Record | RecordProblem
        The GPU run's record, as the tracer (tracer.cpp, loaded with CUDA_INJECTION64_PATH and
        LABKIT_GPU_RECORD=path) streamed it. A missing, unreadable, malformed or unfinished
        record is a RecordProblem (kind "missing", "malformed", "truncated" or "incomplete",
        with a one-line reason and the events read before the fault): a fact about the
        evidence for the grader to report, never an exception and never a verdict by itself.
    from_emulator_profile(profile: dict) -> Record | RecordProblem
        The emulated run's record, from its EMU_PROFILE JSON ("timeline", in issue order;
        labs/emu/src/reports/profile_report.cpp). A profile without a timeline is a RecordProblem.
    kernel_key(name) -> str
        A kernel's name as both records can agree on: "void tiled_kernel<16>(float const*, ...)"
        (CUPTI, demangled) and "tiled_kernel<TILE>" (the emulator) are both "tiled_kernel".

A Record holds its events in the order the program issued them (on a GPU, CUPTI's correlation
id: the order of the API calls). Each event is a Kernel, a Copy or a Memset; `file` is the
kernel's source file where the emulator knows it, and `harness` whether the kit's harness launched
it (the emulator's "origin"; a GPU record has neither: the kit's kernels are then told apart by
name, see compare.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from grader.symbols import base_name
from grader.work import from_harness

RECORD_VARIABLE = "LABKIT_GPU_RECORD"  # tracer.cpp: where it writes the record
FORMAT_VERSION = 1
MAX_RECORD_BYTES = 512 << 20  # a record past this is not read (a program that floods it)
DIRECTIONS = ("HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "other")


@dataclass(frozen=True, kw_only=True)
class Timed:
    """What every event of a record has beside its own facts: its stream and, on a GPU, its span
    on CUPTI's clock (0 in an emulated record: the emulator has no such clock)."""
    stream: int = 0
    start_ns: int = 0
    end_ns: int = 0


@dataclass(frozen=True)
class Kernel(Timed):
    name: str
    device: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    file: str = ""
    harness: bool = False  # launched by the kit's harness (an emulated record's "origin")

    @property
    def key(self) -> str:
        return kernel_key(self.name)

    @property
    def duration_ns(self) -> int:
        return max(0, self.end_ns - self.start_ns)


@dataclass(frozen=True)
class Copy(Timed):
    direction: str
    bytes: int
    device: int
    src_device: int = -1  # -1: host memory
    dst_device: int = -1


@dataclass(frozen=True)
class Memset(Timed):
    bytes: int
    device: int


Event = Kernel | Copy | Memset


@dataclass(frozen=True)
class Record:
    events: tuple[Event, ...]
    source: str  # "gpu" or "emulator"
    dropped: int = 0  # records CUPTI dropped (its buffers full): then the record is incomplete

    @property
    def kernels(self) -> list[Kernel]:
        return [e for e in self.events if isinstance(e, Kernel)]


@dataclass(frozen=True)
class RecordProblem:
    kind: str  # "missing", "malformed", "truncated", "incomplete"
    reason: str  # one line: what is wrong with the evidence, and what that means
    partial: Record | None = None  # the events read before the fault, for a report to show


def kernel_key(name: str) -> str:
    """The kernel's name without return type, parameters or template arguments."""
    words = base_name(name).split()
    return words[-1] if words else ""


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is {value!r}, not an integer")
    return value


def _dim3(value, what: str) -> tuple[int, int, int]:
    if not isinstance(value, list) or len(value) != 3:
        raise ValueError(f"{what} is {value!r}, not [x, y, z]")
    return tuple(_int(v, what) for v in value)  # type: ignore[return-value]


def _event(line: dict) -> tuple[int, Event]:
    """One event line of the tracer's record: (correlation id, event); ValueError names the fault."""
    kind = line.get("kind")
    correlation = _int(line.get("correlation"), "correlation")
    common = dict(stream=_int(line.get("stream"), "stream"), start_ns=_int(line.get("start"), "start"),
                  end_ns=_int(line.get("end"), "end"))
    if kind == "kernel":
        name = line.get("name")
        if not isinstance(name, str):
            raise ValueError(f"a kernel's name is {name!r}")
        return correlation, Kernel(name, _int(line.get("device"), "device"), _dim3(line.get("grid"), "grid"),
                                   _dim3(line.get("block"), "block"), **common)
    if kind == "memcpy":
        direction = line.get("direction")
        if direction not in DIRECTIONS:
            raise ValueError(f"a copy's direction is {direction!r}")
        return correlation, Copy(direction, _int(line.get("bytes"), "bytes"), _int(line.get("device"), "device"),
                                 _int(line.get("src_device"), "src_device"),
                                 _int(line.get("dst_device"), "dst_device"), **common)
    if kind == "memset":
        return correlation, Memset(_int(line.get("bytes"), "bytes"), _int(line.get("device"), "device"), **common)
    raise ValueError(f"an event of kind {kind!r}")


def parse_record(text: str) -> Record | RecordProblem:
    """The tracer's JSON lines (read_record's pure part)."""
    events: list[tuple[int, int, Event]] = []

    def partial() -> Record:
        return Record(tuple(e for _, _, e in sorted(events, key=lambda t: t[:2])), "gpu")

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:  # the last line has no newline: cut off mid-write
        return RecordProblem("truncated", "the GPU record ends in the middle of a line: the program was killed or "
                             "ended by _exit() or a signal before the tracer finished", partial())
    if not lines:
        return RecordProblem("truncated", "the GPU record is empty: CUDA never started in the program, or the "
                             "tracer could not write its header")
    end = None
    for number, raw in enumerate(lines, 1):
        try:
            line = json.loads(raw)
            if not isinstance(line, dict):
                raise ValueError("not an object")
            if number == 1:
                if line.get("labkit_gpu_record") != FORMAT_VERSION:
                    raise ValueError(f"not a version-{FORMAT_VERSION} header")
                continue
            if end is not None:
                raise ValueError("a line after the end line")
            if "error" in line:
                return RecordProblem("incomplete", f"the tracer said: {str(line['error'])[:200]}", partial())
            if line.get("end") is True:
                end = line
                if _int(line.get("events"), "events") != len(events):
                    raise ValueError(f"the end line counts {line.get('events')} events, the record holds {len(events)}")
                continue
            seq = _int(line.get("seq"), "seq")
            if seq != len(events):
                raise ValueError(f"event number {seq} where {len(events)} was next")
            correlation, event = _event(line)
            events.append((correlation, seq, event))
        except ValueError as fault:  # json.JSONDecodeError is one
            return RecordProblem("malformed", f"line {number} of the GPU record is not the tracer's: {fault}; "
                                 f"the program wrote into its record, or the tracer is of another version",
                                 partial())
    if end is None:
        return RecordProblem("truncated", f"the GPU record has no end line ({len(events)} events before it): the "
                             "program was killed, crashed, or ended by _exit() before exit handlers ran", partial())
    dropped = _int(end.get("dropped"), "dropped")
    record = Record(partial().events, "gpu", dropped)
    if dropped:
        return RecordProblem("incomplete", f"CUPTI dropped {dropped} records (its buffers were full): the record "
                             "does not hold every launch", record)
    return record


def read_record(path: Path) -> Record | RecordProblem:
    """The record the tracer wrote at `path` (see the module's docstring)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        return RecordProblem("missing", "the GPU run left no record: the tracer was not loaded (is "
                             "CUDA_INJECTION64_PATH set to the built tracer?) or the program never used CUDA")
    except OSError as error:
        return RecordProblem("missing", f"the GPU record cannot be read: {error.strerror}")
    if len(data) > MAX_RECORD_BYTES:
        return RecordProblem("malformed", f"the GPU record is over {MAX_RECORD_BYTES >> 20} MiB: not read")
    return parse_record(data.decode("utf-8", errors="replace"))


def from_emulator_profile(profile: dict) -> Record | RecordProblem:
    """The emulated run's record from its EMU_PROFILE JSON."""
    timeline = profile.get("timeline") if isinstance(profile, dict) else None
    if not isinstance(timeline, list):
        return RecordProblem("missing", "the emulator's profile has no timeline: the emulator predates it "
                             "(rebuild labs/emu) or the program ran without EMU_PROFILE")
    events: list[Event] = []
    try:
        for number, item in enumerate(timeline):
            op = item.get("op")
            if op == "kernel":
                events.append(Kernel(str(item["kernel"]), _int(item["device"], "device"), _dim3(item["grid"], "grid"),
                                     _dim3(item["block"], "block"), file=str(item.get("file", "")),
                                     harness=from_harness(item)))
            elif op == "memcpy":
                if item["direction"] not in DIRECTIONS:
                    raise ValueError(f"direction {item['direction']!r}")
                events.append(Copy(item["direction"], _int(item["bytes"], "bytes"), _int(item["device"], "device"),
                                   _int(item["src_device"], "src_device"), _int(item["dst_device"], "dst_device")))
            elif op == "memset":
                events.append(Memset(_int(item["bytes"], "bytes"), _int(item["device"], "device")))
            else:
                raise ValueError(f"op {op!r}")
    except (KeyError, ValueError, AttributeError) as fault:
        return RecordProblem("malformed", f"entry {number} of the emulator's timeline is not one: {fault}")
    return Record(tuple(events), "emulator")
