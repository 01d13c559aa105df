"""Expected outputs of the increment lab: the seeded input plus `reps`, added one at a time in
float32 as the GPU does (array('f') rounds each sum to float32)."""

from array import array
from pathlib import Path

from grader.seeded import uniform_floats


def make_expected(params: dict, input_path, path: Path) -> None:
    values = uniform_floats(params["n"], params["seed"])
    for _ in range(params["reps"]):
        values = array("f", (v + 1.0 for v in values))
    path.write_bytes(values.tobytes())
