"""The GPU-evidence corpus's table (grading all of it takes minutes: evidence_corpus.py does that):
every entry names a folder holding its lab's files, cases of its lab, and expectations that can be
held; the entries expected to lose their points under the emulator too are graded there."""

import pytest

from grader.labs import load_lab
from grader.testing import EMU_READY

from evidence_corpus import HERE, grade, load_table, problems


def test_every_entry_is_a_submission_of_its_lab_with_real_cases():
    table = load_table()
    assert len(table) >= 9
    for name, entry in table.items():
        lab = load_lab(entry.lab)
        files = {p.name for p in entry.folder.iterdir()}
        assert files and all(f.endswith(".c") for f in files), name
        assert files <= {f"{program}.c" for program in lab.programs}, name
        cases = {c.name for c in lab.cases}
        assert set(entry.cases) <= cases, name
        for want in entry.gpu + entry.emu:
            assert want.case in entry.cases and (want.verdicts or want.timing), (name, want)
        # one that does the work under the emulator must be expected to lose its points on a GPU
        assert entry.gpu, name
        assert not (entry.gpu_only and entry.emu), f"{name}: gpu_only, yet expected to fail under EMU"


def test_every_folder_is_in_the_table():
    folders = {p.parent.name for p in HERE.glob("*/*/*.c")}
    assert folders == set(load_table())


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
@pytest.mark.parametrize("name", sorted(name for name, entry in load_table().items() if entry.emu))
def test_an_entry_that_cheats_under_the_emulator_too_loses_its_points_there(name):
    entry = load_table()[name]
    assert problems(entry, grade(entry, gpu=False), gpu=False) == []
