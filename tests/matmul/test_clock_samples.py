"""labs/matmul/scripts/clock_samples.py: its reading of nvidia-smi's samples (no GPU needed)."""

import importlib.util

from grader.paths import KIT_ROOT

spec = importlib.util.spec_from_file_location("clock_samples", KIT_ROOT / "labs/matmul/scripts/clock_samples.py")
clock_samples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(clock_samples)

# As `nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active
# --format=csv,nounits` writes it, the last line cut off where the sampler was stopped.
SAMPLES = """timestamp, clocks.current.sm [MHz], power.draw [W], temperature.gpu, clocks_event_reasons.active
2026/11/27 13:55:35.100, 345, 72.25, 33, 0x0000000000000001
2026/11/27 13:55:35.150, 1980, 650.10, 41, 0x0000000000000000
2026/11/27 13:55:35.200, 1755, 699.80, 44, 0x0000000000000004
2026/11/27 13:55:35.250, 1830, [N/A], 45, 0x0000000000000004
2026/11/27 13:55:35.300, 18
"""


def test_summary_counts_busy_samples_and_the_reasons(tmp_path):
    path = tmp_path / "clocks.csv"
    path.write_text(SAMPLES)
    lines = clock_samples.summary(clock_samples.read_samples(path))
    assert lines[0] == "clock samples: 4, 3 with the GPU busy"
    assert lines[1].endswith("1755 / 1830 / 1980 MHz")  # the idle 345 MHz left out
    assert lines[2].endswith("650 / 675 / 700 W")      # [N/A] left out
    assert lines[3] == "  hottest: 45 C"
    assert lines[4] == "  clock held down by (share of busy samples): software power cap 67%"


def test_a_failed_sampler_reads_as_no_samples(tmp_path):
    path = tmp_path / "clocks.csv"
    path.write_text('Field "clocks_event_reasons.active" is not a valid field to query.\n')
    assert clock_samples.summary(clock_samples.read_samples(path))[0] == "clock samples: 0, 0 with the GPU busy"
