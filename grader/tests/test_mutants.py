"""grader mutants (grader/mutants.py): the mutation machinery on its own, then one whole run on
lab increment under the CPU emulator, where every mutant its cases can see must be killed."""

import json
import re
import shutil

import pytest

from grader import cli
from grader.labs import lab_ids, load_lab
from grader.mutants import (EQUIVALENT, KILLED, STILLBORN, SURVIVED, Mutation, MutantRunner, MutationError,
                            apply_mutation, automatic_mutations, load_mutations)
from grader.paths import SOLUTIONS_DIR
from grader.testing import EMU_READY

needs_emu = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")

KERNEL = """__global__ void k(float *d, int n)
{
    __shared__ float s[256];
    s[threadIdx.x] = d[threadIdx.x];
    __syncthreads();
    // a comment that mentions __syncthreads(); is no barrier
    if (threadIdx.x < n) d[threadIdx.x] = s[255 - threadIdx.x];
    __syncthreads();
}
void launch(float *d, int n, int block) { k<<<(n + block - 1) / block, block>>>(d, n); }
"""


def mutation(**kw) -> Mutation:
    fields = dict(name="m", file="increment.c", find="threadIdx.x < n", replace="true", kind="guard-dropped",
                  origin="solutions/x/mutants.toml")
    return Mutation(**{**fields, **kw})


def test_a_find_text_that_occurs_twice_is_an_error_naming_the_file_and_the_lines():
    with pytest.raises(MutationError) as error:
        apply_mutation(KERNEL, mutation(find="__syncthreads();", replace=";"), "solutions/x/k.c")
    message = str(error.value)
    assert "solutions/x/k.c" in message and "3 times" in message and "lines 5, 6, 8" in message
    assert "occurrence = N" in message


def test_occurrence_picks_which_one_and_must_exist():
    changed = apply_mutation(KERNEL, mutation(find="__syncthreads();", replace=";", occurrence=3), "k.c")
    assert changed.count("__syncthreads();") == 2 and changed.rstrip().splitlines()[7] == "    ;"
    with pytest.raises(MutationError, match="occurs 3 time"):
        apply_mutation(KERNEL, mutation(find="__syncthreads();", replace=";", occurrence=4), "k.c")
    with pytest.raises(MutationError, match="does not occur in k.c"):
        apply_mutation(KERNEL, mutation(find="blockIdx.y"), "k.c")


def test_automatic_mutants_skip_comments_and_round_grids_down(tmp_path):
    (tmp_path / "k.c").write_text(KERNEL)
    found = {m.name: m for m in automatic_mutations(tmp_path)}
    assert sorted(found) == ["grid-rounded-down@k.c:launch#1", "sync-dropped@k.c:k#1", "sync-dropped@k.c:k#2"]
    rounded = apply_mutation(KERNEL, found["grid-rounded-down@k.c:launch#1"], "k.c")
    assert "k<<<n / block, block>>>" in rounded
    dropped = apply_mutation(KERNEL, found["sync-dropped@k.c:k#2"], "k.c").splitlines()
    assert dropped[4] == "    __syncthreads();" and dropped[7] == "    ;"


def _lab_dir(tmp_path, toml: str):
    lab_dir = tmp_path / "increment"
    shutil.copytree(SOLUTIONS_DIR / "increment", lab_dir)
    (lab_dir / "mutants.toml").write_text(toml)
    return lab_dir


def test_data_file_errors_say_where_and_what_to_do(tmp_path):
    lab = load_lab("increment")
    twice = '[[mutant]]\nname = "a"\nfile = "increment.c"\nfind = "CUDA_CHECK("\nreplace = ""\nkind = "copy-skipped"\n'
    with pytest.raises(MutationError) as error:
        load_mutations(lab, _lab_dir(tmp_path / "1", twice))
    assert "solutions/increment/increment.c" in str(error.value) and "occurrence = N" in str(error.value)
    bad_kind = twice.replace("copy-skipped", "typo")
    with pytest.raises(MutationError, match="kind 'typo' is not one of sync-dropped"):
        load_mutations(lab, _lab_dir(tmp_path / "2", bad_kind))
    stale = '[equivalent]\n"sync-dropped@increment.c:old_function#1" = "why"\n'
    with pytest.raises(MutationError, match=r"no automatic mutant has that name .*grid-rounded-down@increment.c:launch_increment#1"):
        load_mutations(lab, _lab_dir(tmp_path / "3", stale))


def test_every_lab_data_file_loads_and_applies():
    from grader.labs import lab_ids
    for lab_id in lab_ids():
        mutations = load_mutations(load_lab(lab_id))
        assert mutations, f"lab {lab_id} has no mutants"
        assert len({m.name for m in mutations}) == len(mutations)


@needs_emu
def test_a_mutant_that_does_not_compile_is_stillborn_not_killed():
    runner = MutantRunner(load_lab("increment"), emu=True, log=lambda *_: None)
    stillborn = runner.grade(mutation(name="no-semicolon", find="float *device_data = NULL;",
                                      replace="float *device_data = NULL", kind="copy-skipped"))
    assert stillborn.status == STILLBORN and stillborn.verdict == "CE"
    assert "error" in stillborn.reason


@needs_emu
def test_increment_every_mutant_its_cases_can_see_is_killed(tmp_path, capsys):
    """The whole command on one lab, as CI runs it: the table, the kill rate, the JSON."""
    out = tmp_path / "mutants.json"
    status = cli.main(["mutants", "increment", "--quiet", "--json", str(out)])
    table = capsys.readouterr().out
    assert status == 0, table
    report = json.loads(out.read_text())
    by_name = {m["name"]: m for m in report["mutants"]}
    declared = {m.name: m for m in load_mutations(load_lab("increment"))}
    assert set(by_name) == set(declared)
    for name, m in declared.items():
        got = by_name[name]
        if m.equivalent:
            assert got["status"] == EQUIVALENT, got
        elif m.caught_by is None:
            assert got["status"] == KILLED, f"{name} ({m.kind}) survived the public cases: {got}"
            assert got["verdict"] in ("WA", "RE", "TLE") and got["case"] and got["reason"]
        else:  # only a checker that is off here could see it: reported, with which checker
            assert got["status"] in (KILLED, SURVIVED), got
            if got["status"] == SURVIVED:
                assert re.search(rf"^survivor {re.escape(name)}: in increment.c, .*--asan", table, re.M)
    assert any(m.kind == "grid-rounded-down" for m in declared.values())  # automatic ones took part
    counted = [m for m in report["mutants"] if m["status"] in (KILLED, SURVIVED)]
    killed = sum(m["status"] == KILLED for m in counted)
    assert (report["killed"], report["counted"]) == (killed, len(counted))
    assert f"kill rate: {killed} of {len(counted)} non-equivalent mutants" in table
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:2 + len(declared)]}
    assert set(rows) == set(declared)
    for name, row in rows.items():
        assert row[1] == declared[name].kind and by_name[name]["status"] in row


def test_command_line_errors_say_what_to_do(capsys):
    assert cli.main(["mutants", "increment", "--only", "no-such-mutant"]) == 2
    assert "no mutant named 'no-such-mutant'" in capsys.readouterr().err
    assert cli.main(["mutants", "increment", "--gpu", "--asan"]) == 2
    assert "--asan is for the CPU emulator" in capsys.readouterr().err
    assert cli.main(["mutants", "increment", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(load_mutations(load_lab("increment")))
    assert any("[caught by: asan]" in line for line in listed)


@pytest.mark.parametrize("lab_id", lab_ids())
def test_every_labs_mutants_file_matches_its_solution(lab_id):
    """Each mutation applies to the reference as it is now, and each name mutants.toml gives an
    automatic mutant exists (an edit of the solution must not leave the table behind)."""
    from grader.mutants import apply_mutation, load_mutations
    lab = load_lab(lab_id)
    for mutation in load_mutations(lab):
        text = (SOLUTIONS_DIR / lab_id / mutation.file).read_text()
        assert apply_mutation(text, mutation, f"{lab_id}/{mutation.file}") != text, mutation.name
