"""Occupancy arithmetic from the compiler's resource report ([Baden & Unat 2010], Lab #2,
"Device Occupancy" and "Kernel Parameters": "10 registers; 16x16 blocks: 2560 registers...").

    python3 labs/matmul/scripts/occupancy.py [--arch sm_90] [--file starter/matmul/matmul.c]

Compiles the file with `nvcc --resource-usage` (no GPU needed), reads each kernel's registers
per thread and static shared memory per block, and works out, for each block shape the lab
uses, how many blocks fit on one multiprocessor: the fewest allowed by its warp slots, its
registers (allocated per warp in units of 256, in each of 4 sub-partitions), its shared memory
(in units of 128 bytes, plus 1 KB the driver keeps per block on sm_80 and later) and its
block slots. Occupancy is resident warps over the most the multiprocessor can hold. These are
the rules of CUDA's own occupancy calculator (cuda_occupancy.h).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Arch:
    max_warps: int  # resident warps per SM
    max_blocks: int  # resident blocks per SM
    smem_per_sm: int  # bytes, largest carve-out
    reserved_smem: int  # bytes the driver keeps per block
    smem_unit: int  # allocation granularity, bytes
    regs_per_sm: int = 65536
    reg_unit: int = 256  # registers, per warp
    sub_partitions: int = 4


# CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
ARCHS = {
    "sm_70": Arch(64, 32, 96 * 1024, 0, 256),
    "sm_75": Arch(32, 16, 64 * 1024, 0, 256),
    "sm_80": Arch(64, 32, 164 * 1024, 1024, 128),
    "sm_86": Arch(48, 16, 100 * 1024, 1024, 128),
    "sm_89": Arch(48, 24, 100 * 1024, 1024, 128),
    "sm_90": Arch(64, 32, 228 * 1024, 1024, 128),
}

NAIVE_SHAPES = [(16, 16), (8, 8), (4, 4), (32, 32), (2, 256), (2, 128), (2, 64), (2, 32), (4, 128), (4, 64)]


@dataclass(frozen=True)
class Kernel:
    name: str  # demangled, without the parameter list
    registers: int
    smem: int  # static shared memory per block, bytes


def round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def blocks_per_sm(arch: Arch, kernel: Kernel, threads: int) -> tuple[int, str]:
    """(resident blocks, what limits them) for blocks of `threads` threads."""
    warps = -(-threads // 32)
    regs_per_warp = round_up(kernel.registers * 32, arch.reg_unit)
    warps_by_regs = (arch.regs_per_sm // arch.sub_partitions // regs_per_warp) * arch.sub_partitions \
        if regs_per_warp else arch.max_warps
    smem = round_up(kernel.smem + arch.reserved_smem, arch.smem_unit)
    limits = {
        "warp slots": arch.max_warps // warps,
        "registers": warps_by_regs // warps,
        "shared memory": arch.smem_per_sm // smem if smem else 1 << 30,
        "block slots": arch.max_blocks,
    }
    blocks = min(limits.values())
    return blocks, " and ".join(name for name, value in limits.items() if value == blocks)


def demangle(names: list[str]) -> list[str]:
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if not tool:
        return names
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return out if len(out) == len(names) else names


def resource_usage(source: Path, arch: str) -> list[Kernel]:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    command = [nvcc, "-x", "cu", "-std=c++17", "-O3", f"-arch={arch}", f"-I{KIT_ROOT / 'labs/common'}",
               f"-I{KIT_ROOT / 'labs/matmul'}", "--resource-usage", "-c", str(source), "-o", "/dev/null"]
    try:
        proc = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("nvcc not found: install the CUDA toolkit (the report needs no GPU)")
    if proc.returncode != 0:
        sys.exit(f"nvcc failed:\n{proc.stderr}")
    report = proc.stdout + proc.stderr
    # ptxas prints, per entry function: "Function properties for NAME", then "Used R registers, ... S bytes smem".
    found = re.findall(r"Function properties for (\S+)\n(?:.*\n)*?.*?Used (\d+) registers.*?(?:, (\d+) bytes smem)?\n",
                       report)
    names = demangle([name for name, _, _ in found])
    kernels = []
    for name, (_, registers, smem) in zip(names, found):
        kernels.append(Kernel(re.sub(r"^void ", "", name.split("(")[0]), int(registers), int(smem or 0)))
    return kernels


def block_shapes(kernel: Kernel) -> list[tuple[str, int]]:
    """The block shapes the lab launches this kernel with: (label, threads)."""
    if kernel.name.startswith("naive"):
        return [(f"{x}x{y}", x * y) for x, y in NAIVE_SHAPES]
    tile = re.match(r"tiled\w*<(\d+)>", kernel.name)
    if tile:
        t = int(tile.group(1))
        return [(f"{t}x{t}", t * t)]
    shape = re.search(r"TileShape<(\d+), (\d+), \d+, (\d+), (\d+)", kernel.name)
    if shape:
        bm, bn, wm, wn = map(int, shape.groups())
        threads = 32 * (bm // wm) * (bn // wn)
        return [(f"{threads}", threads)]
    return []


def short_name(name: str) -> str:
    name = re.sub(r"<TileShape<([^>]*)>", lambda m: "<" + m.group(1).replace(" ", ""), name)
    return name.replace(", true>", ", vec4>").replace(", false>", ", scalar>")


STORY_ORDER = ["naive_kernel", "naive_uncoalesced", "tiled_kernel", "tiled_uncoalesced", "fast"]


def story_key(kernel: Kernel) -> tuple:
    """The handout's order: naive, its twin, tiled (largest tile first), its twin, fast."""
    rank = next((i for i, p in enumerate(STORY_ORDER) if kernel.name.startswith(p)), len(STORY_ORDER))
    tile = re.match(r"\w+<(\d+)>", kernel.name)
    return rank, -int(tile.group(1)) if tile else 0, kernel.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", default=None, help=f"one of {', '.join(ARCHS)} (default: this machine's GPU, "
                                                     f"else sm_90)")
    parser.add_argument("--file", type=Path, default=KIT_ROOT / "starter/matmul/matmul.c",
                        help="the file whose kernels to report (default: yours)")
    args = parser.parse_args()
    arch_name = args.arch
    if arch_name is None:
        smi = shutil.which("nvidia-smi")
        cc = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                            text=True).stdout.split() if smi else []
        arch_name = f"sm_{cc[0].replace('.', '')}" if cc else "sm_90"
    if arch_name not in ARCHS:
        sys.exit(f"--arch {arch_name}: known architectures are {', '.join(ARCHS)}")
    arch = ARCHS[arch_name]
    kernels = resource_usage(args.file, arch_name)
    print(f"Occupancy on {arch_name}: {arch.max_warps} warps, {arch.max_blocks} blocks, {arch.regs_per_sm} registers "
          f"and {arch.smem_per_sm // 1024} KB of shared memory per multiprocessor ({args.file.name})")
    header = ["kernel", "block", "regs", "smem B", "regs/block", "blocks/SM", "limited by", "warps/SM", "occupancy"]
    rows = []
    for kernel in sorted(kernels, key=story_key):
        shapes = block_shapes(kernel)
        if not shapes:
            rows.append([short_name(kernel.name), "?", kernel.registers, kernel.smem, "", "", "", "", ""])
        for label, threads in shapes:
            blocks, limit = blocks_per_sm(arch, kernel, threads)
            warps = blocks * -(-threads // 32)
            rows.append([short_name(kernel.name), label, kernel.registers, kernel.smem,
                         kernel.registers * threads, blocks, limit, warps, f"{100 * warps / arch.max_warps:.0f}%"])
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        print("  " + "  ".join(str(c).ljust(widths[i]) if i in (0, 6) else str(c).rjust(widths[i])
                               for i, c in enumerate(row)))


if __name__ == "__main__":
    main()
