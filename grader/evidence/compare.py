"""Does the GPU run's record show the work the emulated run of the same case did?

    compare_records(gpu, emulated, *, kit_kernels=(), launch_counts="exact", geometry=True) -> list[str]
        gpu, emulated: Records (record.py) of the same case, the same argv, on the same number of
        devices. Returns the differences, each one printable line naming it ("on device 0, after
        the copy of 16384 bytes host to device, the GPU run copied 16384 bytes device to host;
        the emulated run launched tiled_kernel<TILE> 7 times (grid 8x8x1, block 8x8x1)"); empty
        when they agree. Only the first difference on each device is named: the rest follow
        from it. A pure function.

What is compared, on each device, in the order the program issued it: the student's kernel
launches (name without template arguments, grid and block; consecutive launches of the same
kernel counted together), the copies that reach the device from the host or within it (direction
and bytes) and the memsets (bytes). Copies between two devices are compared apart, as counts of
(source device, destination device, bytes) over the whole run: a multi-GPU program issues each
device's work from a host thread of its own, so where a peer copy falls among another device's
launches is the threads' race, the same in no two runs. Left out: the kit's own kernels (those the
emulated run's profile marks as the harness's, work.py's "origin", and `kit_kernels`: names from
the build, e.g. kernels_in_nm(nm of the harness's objects)), copies
between two host buffers (a GPU records them, the emulator does not), streams, and times.

launch_counts="exact": each stretch of launches must have the same count in both runs. A lab
whose launch count depends on the schedule (a loop until a flag stays set, where one launch may
do more than one step) asks for "set": then each run must launch the same kernels with the same
geometry, and make the same kinds of copies, on each device, whatever the counts and order.
geometry=False compares names alone: for a program that sizes its grid from the device's
properties (multiProcessorCount), which the emulator reports as its own and does not fake.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection

from grader.evidence.record import Copy, Event, Kernel, Memset, Record, kernel_key

# A step of one device's work: ("launch", key, shown name, grid, block, count),
# ("copy", direction, bytes) or ("memset", bytes).
Step = tuple


def kernels_in_nm(nm_output: str) -> list[str]:
    """The kernels an object defines, from `nm` of it (nvcc's host stubs, __device_stub__Z<name>...):
    the harness's own objects give `kit_kernels`. Names as kernel_key has them ("ns::k")."""
    found = []
    for match in re.finditer(r"__device_stub__Z(N?)", nm_output):
        rest, parts = nm_output[match.end():], []
        while (digits := re.match(r"\d+", rest)) is not None:
            length = int(digits.group(0))
            parts.append(rest[len(digits.group(0)):len(digits.group(0)) + length])
            rest = rest[len(digits.group(0)) + length:]
            if not match.group(1):  # not nested: one name
                break
        name = "::".join(parts)
        if name and name not in found:
            found.append(name)
    return found


def _kit_keys(emulated: Record, kit_kernels: Collection[str]) -> set[str]:
    keys = {kernel_key(name) for name in kit_kernels}
    keys |= {k.key for k in emulated.kernels if k.harness}
    return keys


def _between_devices(event: Event) -> bool:
    return isinstance(event, Copy) and event.direction == "PtoP"


def _device(event: Event) -> int:
    """The device whose ordered work holds the event (a copy: the device its memory is on)."""
    if isinstance(event, Copy):
        return next((d for d in (event.dst_device, event.src_device) if d >= 0), event.device)
    return event.device


def _steps(record: Record, device: int, kit: set[str], geometry: bool) -> list[Step]:
    steps: list[list] = []
    for event in record.events:
        if _between_devices(event) or _device(event) != device:
            continue
        if isinstance(event, Kernel):
            if event.key in kit:
                continue
            grid, block = (event.grid, event.block) if geometry else (None, None)
            last = steps[-1] if steps else None
            if last and last[0] == "launch" and last[1] == event.key and last[3] == grid and last[4] == block:
                last[5] += 1
            else:
                steps.append(["launch", event.key, event.name, grid, block, 1])
        elif isinstance(event, Copy):
            if event.direction == "HtoH":
                continue
            steps.append(["copy", event.direction, event.bytes])
        elif isinstance(event, Memset):
            steps.append(["memset", event.bytes])
    return [tuple(s) for s in steps]


def _same(a: Step, b: Step) -> bool:
    """Two steps alike; a launch's shown name may differ (template arguments, return type)."""
    if a[0] == "launch" and b[0] == "launch":
        return a[1] == b[1] and a[3:] == b[3:]
    return a == b


def _dims(d: tuple[int, int, int]) -> str:
    return "x".join(str(v) for v in d)


_DIRECTION_WORDS = {"HtoD": "host to device", "DtoH": "device to host", "DtoD": "within the device",
                    "PtoP": "between devices", "other": "(another kind of copy)"}


def describe(step: Step | None, *, with_count: bool = True) -> str:
    """What a run did at a step, as the reason shows it ("launched tiled_kernel 7 times (...)")."""
    if step is None:
        return "did nothing more on it"
    if step[0] == "launch":
        _, key, name, grid, block, count = step
        shown = name if len(name) <= 60 and "(" not in name else key
        times = f" {_times(count)}" if with_count else ""
        where = f" (grid {_dims(grid)}, block {_dims(block)})" if grid is not None else ""
        return f"launched {shown}{times}{where}"
    if step[0] == "copy":
        _, direction, size = step
        return f"copied {size} bytes {_DIRECTION_WORDS.get(direction, direction)}"
    return f"set {step[1]} bytes with a memset"


def _context(steps: list[Step], i: int) -> str:
    if i == 0:
        return "first"
    before = steps[i - 1]
    if before[0] == "launch":
        return f"after {before[5]} launch{'es' if before[5] != 1 else ''} of {before[1]}"
    if before[0] == "copy":
        return f"after the copy of {before[2]} bytes {_DIRECTION_WORDS.get(before[1], before[1])}"
    return f"after the memset of {before[1]} bytes"


def _first_difference(gpu: list[Step], emu: list[Step]) -> str | None:
    for i in range(max(len(gpu), len(emu))):
        g = gpu[i] if i < len(gpu) else None
        e = emu[i] if i < len(emu) else None
        if g is not None and e is not None and _same(g, e):
            continue
        if g is not None and e is not None and g[0] == e[0] == "launch" and g[1] == e[1] and g[3:5] == e[3:5]:
            return (f"{_context(emu, i)}, the GPU run launched {g[1]} {g[5]} times in a row; "
                    f"the emulated run {e[5]} times")
        gpu_words = "launched no kernel" if g is None and e[0] == "launch" else describe(g)
        return f"{_context(emu, i)}, the GPU run {gpu_words}; the emulated run {describe(e)}"
    return None


def _set_difference(gpu: list[Step], emu: list[Step]) -> str | None:
    def kinds(steps: list[Step]) -> dict:
        out = {}
        for s in steps:
            key = (s[0], s[1], s[3], s[4]) if s[0] == "launch" else s
            out.setdefault(key, s)
        return out
    g, e = kinds(gpu), kinds(emu)
    missing = [e[k] for k in e if k not in g]
    extra = [g[k] for k in g if k not in e]
    if not missing and not extra:
        return None
    parts = []
    if missing:
        parts.append("the GPU run never " + "; never ".join(describe(s, with_count=False) for s in missing[:3])
                     + " as the emulated run did")
    if extra:
        parts.append("the GPU run " + "; ".join(describe(s, with_count=False) for s in extra[:3])
                     + ", which the emulated run never did")
    return "; ".join(parts)


def compare_records(gpu: Record, emulated: Record, *, kit_kernels: Collection[str] = (),
                    launch_counts: str = "exact", geometry: bool = True) -> list[str]:
    """The differences between the two runs' device work (see the module's docstring)."""
    if launch_counts not in ("exact", "set"):
        raise ValueError(f"launch_counts={launch_counts!r}: use \"exact\" or \"set\"")
    kit = _kit_keys(emulated, kit_kernels)
    devices = sorted({_device(e) for r in (gpu, emulated) for e in r.events if not _between_devices(e)})
    differences = []
    for device in devices:
        g, e = _steps(gpu, device, kit, geometry), _steps(emulated, device, kit, geometry)
        found = _first_difference(g, e) if launch_counts == "exact" else _set_difference(g, e)
        if found:
            differences.append(f"on device {device}, {found}")
    found = _peer_copy_difference(gpu, emulated, counts=launch_counts == "exact")
    return differences + ([found] if found else [])


def _peer_copies(record: Record) -> Counter:
    return Counter((e.src_device, e.dst_device, e.bytes) for e in record.events if _between_devices(e))


def _peer_copy_difference(gpu: Record, emulated: Record, *, counts: bool) -> str | None:
    """The first (source, destination, bytes) of the copies between devices that the runs made a
    different number of times (counts=False: that one run made and the other never did)."""
    g, e = _peer_copies(gpu), _peer_copies(emulated)
    for key in sorted(g.keys() | e.keys()):
        if g[key] == e[key] or (not counts and g[key] and e[key]):
            continue
        src, dst, size = key
        return (f"between devices, the copy of {size} bytes from device {src} to device {dst}: the GPU run made it "
                f"{_times(g[key])}, the emulated run {_times(e[key])}")
    return None


def _times(count: int) -> str:
    return f"{count} time{'s' if count != 1 else ''}"
