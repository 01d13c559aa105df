"""Sums up what nvidia-smi sampled while a timed step ran (gpu_tensor.sh writes the samples):

    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
        --format=csv,nounits -lms 50 > clocks.csv
    python3 labs/matmul/scripts/clock_samples.py clocks.csv

prints the SM clock and the power draw (lowest, median, highest) over the samples where the GPU
was busy, the hottest temperature, and how often each reason the driver gave for holding the
clock down was active. A kernel timed at a lower clock than its rival is timed unfairly; a card
at its power limit ("software power cap") runs each kernel as fast as its power allows.
"""

import csv
import statistics
import sys
from pathlib import Path

# nvidia-smi's bits of clocks_event_reasons.active (its --help-query-gpu).
REASONS = {
    0x1: "GPU idle",
    0x2: "applications clocks setting",
    0x4: "software power cap",
    0x8: "hardware slowdown",
    0x10: "sync boost",
    0x20: "software thermal slowdown",
    0x40: "hardware thermal slowdown",
    0x80: "hardware power brake slowdown",
    0x100: "display clock setting",
}
IDLE = 0x1


def read_samples(path: Path) -> list[dict[str, str]]:
    """The samples as rows keyed by the header's names without their units; rows that are not
    whole samples (a line nvidia-smi cut off when it was stopped) are dropped."""
    with path.open(newline="") as file:
        rows = list(csv.reader(file, skipinitialspace=True))
    if not rows:
        return []
    names = [name.split(" [")[0].strip() for name in rows[0]]
    return [dict(zip(names, row)) for row in rows[1:] if len(row) == len(names)]


def number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None


def reasons_of(sample: dict[str, str]) -> int | None:
    for name in ("clocks_event_reasons.active", "clocks_throttle_reasons.active"):
        if name in sample:
            try:
                return int(sample[name], 16)
            except ValueError:
                return None
    return None


def spread(values: list[float], unit: str) -> str:
    if not values:
        return "not sampled"
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f} {unit}"


def summary(samples: list[dict[str, str]]) -> list[str]:
    busy = [s for s in samples if (reasons_of(s) or 0) & IDLE == 0]
    clock = [v for s in busy if (v := number(s.get("clocks.current.sm", s.get("clocks.sm", "")))) is not None]
    power = [v for s in busy if (v := number(s.get("power.draw", ""))) is not None]
    temperature = [v for s in samples if (v := number(s.get("temperature.gpu", ""))) is not None]
    lines = [f"clock samples: {len(samples)}, {len(busy)} with the GPU busy",
             f"  SM clock (lowest / median / highest, busy): {spread(clock, 'MHz')}",
             f"  power draw (busy): {spread(power, 'W')}",
             f"  hottest: {max(temperature):.0f} C" if temperature else "  temperature: not sampled"]
    counts: dict[str, int] = {}
    for sample in busy:
        bits = reasons_of(sample)
        if bits is None:
            continue
        for bit, name in REASONS.items():
            if bits & bit:
                counts[name] = counts.get(name, 0) + 1
    if counts:
        lines.append("  clock held down by (share of busy samples): " +
                     ", ".join(f"{name} {count / len(busy):.0%}" for name, count in sorted(counts.items())))
    elif busy and any(reasons_of(s) is not None for s in busy):
        lines.append("  clock held down by: nothing (no reason active in any busy sample)")
    return lines


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print("\n".join(summary(read_samples(Path(sys.argv[1])))))


if __name__ == "__main__":
    main()
