import sys
from array import array
from pathlib import Path

import pytest

from support import FAKES


@pytest.fixture
def expected_file(tmp_path) -> Path:
    path = tmp_path / "expected.bin"
    path.write_bytes(array("f", [float(i) for i in range(8)]).tobytes())
    return path


@pytest.fixture
def fake_program(tmp_path) -> Path:
    """An executable wrapper around fakes/program.py."""
    path = tmp_path / "fake"
    path.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKES / 'program.py'} \"$@\"\n")
    path.chmod(0o755)
    return path
