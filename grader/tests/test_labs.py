"""Every lab's configuration loads, and the Makefile fragment is made from it."""

import subprocess
import sys

import pytest

from grader.labs import ConfigError, lab_ids, load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR


def test_labs_are_the_folders_with_a_lab_toml():
    assert "increment" in lab_ids()
    assert lab_ids() == sorted(p.parent.name for p in (KIT_ROOT / "labs").glob("*/lab.toml"))


@pytest.mark.parametrize("lab_id", lab_ids())
def test_lab_loads_and_its_trees_belong_together(lab_id):
    lab = load_lab(lab_id)
    assert lab.programs, f"starter/{lab_id} has no .c files"
    assert lab.cases, f"testcases/{lab_id}/cases.toml has no cases"
    assert any(c.group == "public" for c in lab.cases)
    starter = sorted(p.name for p in (STARTER_DIR / lab_id).glob("*.c"))
    solution = sorted(p.name for p in (SOLUTIONS_DIR / lab_id).glob("*.c"))
    assert starter == solution, "solutions/<lab> must have the same file names as starter/<lab>"
    assert (KIT_ROOT / "handouts" / f"{lab_id}.md").exists()
    for run in lab.bench:
        assert run[0] in lab.programs
    # Without a GPU, make bench runs these (grader/cli.py cmd_bench); a lab with GPU-sized runs
    # alone would keep an emulator busy for hours.
    assert lab.emu_bench, f"labs/{lab_id}/lab.toml: [bench] emu_runs: sizes fit for the CPU emulator"
    assert {run[0] for run in lab.emu_bench} <= set(lab.programs)


def test_unknown_lab_names_the_labs():
    with pytest.raises(ConfigError, match="no lab named 'nope'; the labs are: .*increment"):
        load_lab("nope")


def test_makefrag_prints_every_lab_settings():
    out = subprocess.run([sys.executable, "-m", "grader.makefrag", *lab_ids()], cwd=KIT_ROOT,
                         capture_output=True, text=True, check=True).stdout
    for lab_id in lab_ids():
        assert f"LAB_{lab_id}_LDLIBS :=" in out


def test_make_check_without_lab_says_which_labs_exist():
    proc = subprocess.run(["make", "-s", "check"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "say which lab: LAB=<lab>, one of:" in proc.stderr and "increment" in proc.stderr


def test_make_check_with_unknown_lab():
    proc = subprocess.run(["make", "-s", "check", "LAB=nope"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "LAB=nope names no lab" in proc.stderr


def test_make_help_lists_targets():
    out = subprocess.run(["make", "-s", "help"], cwd=KIT_ROOT, capture_output=True, text=True).stdout
    for target in ("make check LAB=<lab>", "make bench LAB=<lab>", "make submit LAB=<lab>", "make test", "EMU=1"):
        assert target in out


def test_missing_nvcc_says_what_to_do():
    proc = subprocess.run(["make", "-s", "increment", "EMU=0", "NVCC=/nonexistent/nvcc"], cwd=KIT_ROOT,
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert "nvcc not found (NVCC=/nonexistent/nvcc)" in proc.stderr
    assert "EMU=1" in proc.stderr


def test_multi_device_runs_include_devices_without_peer_access():
    """apsp's multigpu runs on 2 emulated devices with peer access and on 3 without, so that both
    of its exchange paths (peer copies, and through the host) are graded."""
    from grader.run_plan import case_plans
    lab = load_lab("apsp")
    assert lab.no_peer_counts == (3,)
    case = next(c for c in lab.cases if c.program == "multigpu")
    runs = {plan.label: plan.env for plan in case_plans(lab, case, emu=True, checks=False, gpus=0)}
    assert runs["on 2 emulated devices"]["CUDA_EMU_DEVICES"] == "2"
    assert "CUDA_EMU_PEER_ACCESS" not in runs["on 2 emulated devices"]
    assert runs["on 3 emulated devices without peer access"]["CUDA_EMU_PEER_ACCESS"] == "0"


def test_a_gpu_node_runs_the_multi_device_program_on_its_gpus_and_the_rest_emulated():
    from grader.run_plan import case_plans
    lab = load_lab("apsp")
    case = next(c for c in lab.cases if c.program == "multigpu")
    one_gpu = case_plans(lab, case, emu=False, checks=True, gpus=1)
    assert [(p.where, p.emulated) for p in one_gpu] == [
        ("on 1 GPU", False), ("on 2 emulated devices", True), ("on 3 emulated devices without peer access", True)]
    assert [p.where for p in case_plans(lab, case, emu=False, checks=True, gpus=4)] == ["on 4 GPUs"]
    checked = case_plans(lab, case, emu=True, checks=True, gpus=0)
    assert checked[-1].schedule_seed and checked[-1].env["EMU_RACECHECK"] == "1"
    assert checked[-1].label.startswith("on 3 emulated devices without peer access, threads in a random order")


def test_devices_without_peer_access_must_be_among_the_counts(tmp_path, monkeypatch):
    import grader.labs as labs
    source = labs.LABS_DIR / "apsp" / "lab.toml"
    lab_dir = tmp_path / "apsp"
    lab_dir.mkdir()
    (lab_dir / "lab.toml").write_text(source.read_text().replace("without_peer_access = [3]",
                                                                  "without_peer_access = [4]"))
    monkeypatch.setattr(labs, "LABS_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"without_peer_access \[4\] names a count that is not in counts \[2, 3\]"):
        load_lab("apsp")


@pytest.mark.parametrize("old, new, error", [
    ('cases = ["gpu-g02-cycle"]', 'cases = ["gpu-g02-cycel"]',
     r"\[sanitize\] cases names gpu-g02-cycel, not a case of testcases/apsp/cases.toml"),
    ("emulator_checks = true", "emulator_check = true", r"\[sanitize\] .*unexpected keyword argument 'emulator_check'"),
])
def test_sanitize_names_real_cases_and_known_keys(tmp_path, monkeypatch, old, new, error):
    import grader.labs as labs
    source = labs.LABS_DIR / "apsp" / "lab.toml"
    (tmp_path / "apsp").mkdir()
    (tmp_path / "apsp" / "lab.toml").write_text(source.read_text().replace(old, new))
    monkeypatch.setattr(labs, "LABS_DIR", tmp_path)
    with pytest.raises(ConfigError, match=error):
        load_lab("apsp")
