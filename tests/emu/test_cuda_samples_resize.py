"""labs/emu/conformance/cuda_samples_resize.py: a sample's compile-time sizes rewritten in a copy
of its folder, the checkout left alone, and a size the sources no longer define refused."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "labs", "emu", "conformance"))
from cuda_samples_resize import resized_copy  # noqa: E402

SAMPLE = """\
#define M 16
#define M_TILES 512
#  define N_TILES   512 // tiles across
#define M_GLOBAL (M * M_TILES)
int main() { return M_GLOBAL; }
"""


def test_a_copy_gets_the_smaller_sizes_and_the_checkout_keeps_its_own(tmp_path):
    folder = tmp_path / "checkout" / "gemm"
    folder.mkdir(parents=True)
    (folder / "gemm.cu").write_text(SAMPLE)
    (folder / "README.md").write_text("#define M_TILES 512 in a document is not a source\n")
    copy = tmp_path / "work" / "gemm"
    note = resized_copy(str(folder), str(copy), {"M_TILES": 32, "N_TILES": 16})
    assert note == "sizes M_TILES 512 -> 32, N_TILES 512 -> 16"
    text = (copy / "gemm.cu").read_text()
    assert "#define M_TILES 32\n" in text and "#  define N_TILES   16 // tiles across\n" in text
    assert "#define M 16\n" in text and "#define M_GLOBAL (M * M_TILES)" in text  # others untouched
    assert (folder / "gemm.cu").read_text() == SAMPLE
    assert "512" in (copy / "README.md").read_text()
    # Made again over an earlier copy: the same result.
    assert resized_copy(str(folder), str(copy), {"M_TILES": 32, "N_TILES": 16}) == note


def test_a_size_the_sources_do_not_define_is_refused(tmp_path):
    folder = tmp_path / "gemm"
    folder.mkdir()
    (folder / "gemm.cu").write_text(SAMPLE)
    with pytest.raises(ValueError, match="K_TILES: not #defined"):
        resized_copy(str(folder), str(tmp_path / "copy"), {"M_TILES": 32, "K_TILES": 32})


def test_a_size_that_is_a_constant_of_the_source_is_rewritten_too(tmp_path):
    folder = tmp_path / "aligned-types-cuda"
    folder.mkdir()
    (folder / "main.cu").write_text("const int       MEM_SIZE = 50000000;\nconst int NUM_ITERATIONS = 1000;\n"
                                    "int other = MEM_SIZE;\n")
    note = resized_copy(str(folder), str(tmp_path / "copy"), {"MEM_SIZE": "500000", "NUM_ITERATIONS": "10"})
    assert note == "sizes MEM_SIZE 50000000 -> 500000, NUM_ITERATIONS 1000 -> 10"
    assert (tmp_path / "copy" / "main.cu").read_text() == (
        "const int       MEM_SIZE = 500000;\nconst int NUM_ITERATIONS = 10;\nint other = MEM_SIZE;\n")
