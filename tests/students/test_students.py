"""The student corpus (students.py, expectations.toml) under the CPU emulator: each submission
graded on a few public cases of its lab (students.CASES), with the grader's default checks
(AddressSanitizer, the race detector, a random-order pass, multigpu on 2 and 3 devices), must
get what the table says: full marks for the transcriptions of the seeds, the named verdict and
words in the reason for each realistic bug."""

import pytest

from grader.testing import EMU_READY

from students import CASES, cases_for, load_table, grade, lost_points, missing_requirement, problems

TABLE = load_table()


def test_the_table_names_a_folder_a_submission_and_the_graded_cases():
    from grader.labs import load_lab
    for name, expect in TABLE.items():
        lab = load_lab(expect.lab)
        assert expect.folder.is_dir(), f"{name}: no folder {expect.folder}"
        for program in lab.programs:
            assert (expect.folder / expect.lab / f"{program}.c").is_file(), f"{name}: {program}.c missing"
        assert set(expect.cases) <= set(CASES[expect.lab]), f"{name}: cases not among {CASES[expect.lab]}"
        for fail in expect.fails:
            assert fail.case in CASES[expect.lab], f"{name}: {fail.case} is not one of the graded {CASES[expect.lab]}"
            assert fail.verdicts and all(v in ("WA", "RE", "TLE", "CE", "WORK") for v in fail.verdicts), name
    folders = {p.parent.name for p in students_folders()}
    assert folders == set(TABLE), f"folders without an entry, or entries without a folder: {folders ^ set(TABLE)}"


def students_folders():
    from students import HERE
    return [p for p in HERE.glob("*/*/*") if p.is_dir() and p.name == p.parent.parent.name]


def test_each_lab_has_a_transcription_and_two_bugs():
    for lab in CASES:
        entries = [e for e in TABLE.values() if e.lab == lab]
        assert any(not e.fails for e in entries), f"{lab}: no submission that must get full marks"
        assert sum(bool(e.fails) for e in entries) >= 2, f"{lab}: fewer than two realistic bugs"


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
@pytest.mark.parametrize("name", sorted(TABLE, key=lambda n: (TABLE[n].lab, n)))
def test_submission_gets_what_the_table_says(name):
    expect = TABLE[name]
    why_not = missing_requirement(expect.requires)
    if why_not:
        pytest.skip(f"{name}: {why_not}")
    if expect.flaky:
        pytest.skip(f"{name}: flaky, the grader catches it in some runs only: {expect.flaky}")
    cases = cases_for(expect)
    report = grade(expect, cases)
    assert [r.case for r in report.results] == cases
    found = problems(expect, report)
    if expect.known_gap:
        assert lost_points(expect, report) == [], f"{name}: a bug got points ({expect.what})"
        if found:
            pytest.xfail(f"{name}: known gap: {expect.known_gap}; {found[0]}")
        pytest.fail(f"{name}: the known gap is closed ({expect.known_gap}): remove known_gap from expectations.toml")
    assert found == [], f"{name} ({expect.what})"
    if not expect.fails:
        assert report.score == report.max_score
