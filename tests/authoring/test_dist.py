"""The two editions of the kit (authoring/dist.py): the student edition holds no solution, answer
or secret, and works on its own: unpacked in a temporary folder, `make check LAB=<lab> EMU=1`
grades each lab's starter there."""

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from authoring import dist
from grader.grade import Grader
from grader.intake import Source
from grader.report import Report
from grader.timing import ReferenceTiming
from grader.labs import lab_ids, load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR
from grader.testing import seed_kit_build, whole_run

HAS_PANDOC = shutil.which("pandoc") is not None and shutil.which("dot") is not None
PACKED_LABS = [lab for lab in lab_ids() if f"labs/{lab}/lab.toml" in dist.kit_files()]  # committed ones
# make check in the unpacked student edition: lab 1 in make test, every lab with
# LABKIT_EVERY_LAB=1 (tests/every_lab.sh)
CHECKED_LABS = PACKED_LABS if whole_run() else [lab for lab in PACKED_LABS if lab == "increment"]


def members(tarball: Path) -> dict[str, bytes]:
    with tarfile.open(tarball) as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


@pytest.fixture(scope="module")
def student_tarball(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    return dist.pack("student", out, html=HAS_PANDOC, log=lambda *_: None)


@pytest.fixture(scope="module")
def student_files(student_tarball) -> dict[str, bytes]:
    return members(student_tarball)


def test_student_edition_has_what_a_student_needs(student_files):
    for lab in PACKED_LABS:
        assert f"labs/{lab}/lab.toml" in student_files
        assert f"testcases/{lab}/cases.toml" in student_files
        assert f"handouts/{lab}.md" in student_files
        for program in load_lab(lab).programs:
            assert f"starter/{lab}/{program}.c" in student_files
    for needed in ("Makefile", "README.md", "EDITION.md", "grader/__main__.py", "authoring/dist.py", "labs/emu/emu.mk",
                   "labs/common/cuda_check.h"):
        assert needed in student_files
    assert b"student edition" in student_files["EDITION.md"]


def test_student_edition_holds_no_solution_answer_or_test(student_files):
    assert not [n for n in student_files if n.startswith(("solutions/", "handouts/answers/", "tests/",
                                                           "grader/tests/", "handouts/html/answers/"))]
    # No solution's text anywhere, under any name (a starter identical to its solution is no secret).
    for solution in SOLUTIONS_DIR.rglob("*"):
        if not solution.is_file():
            continue
        text = solution.read_bytes()
        starter = STARTER_DIR / solution.relative_to(SOLUTIONS_DIR)
        if starter.exists() and starter.read_bytes() == text:
            continue
        holders = [n for n, data in student_files.items() if data == text]
        assert not holders, f"{solution.relative_to(KIT_ROOT)} is in the student edition as {holders}"
    # Nor any lab script that reads or runs the solution (it could not work without it anyway).
    for name, data in student_files.items():
        if name.startswith("labs/") and "/scripts/" in name:
            assert not any(m.encode() in data for m in dist.SOLUTION_MARKERS), name


def test_student_edition_readme_shows_a_students_commands(student_files):
    # Its main command is the student's own (no SOL=1: there are no solutions to build); the TA's
    # sections are the instructor edition's.
    readme = student_files["README.md"].decode()
    commands = [l for l in readme.splitlines() if l.startswith("    ") and ("make " in l or "grader" in l)]
    assert "    make deps && make check LAB=increment " in "\n".join(commands)
    assert not [c for c in commands if "SOL=1" in c or "--solution" in c or "grader batch" in c], commands
    assert "-only" not in readme and "## TAs and instructors" not in readme and "## Students" in readme
    instructor = (KIT_ROOT / "README.md").read_text()
    assert dist.for_edition(instructor, "instructor") == instructor and "make check LAB=increment SOL=1" in instructor


def test_edition_and_submission_name_the_same_kit_version(student_files, tmp_path):
    from grader.submit import package
    from grader.version import kit_version
    edition = student_files["EDITION.md"].decode()
    assert f"Kit version: {kit_version()}\n" in edition
    package(load_lab("increment"), SOLUTIONS_DIR / "increment", tmp_path / "s.tar.gz")
    with tarfile.open(tmp_path / "s.tar.gz") as tar:
        manifest = tar.extractfile("increment/MANIFEST.json").read().decode()
    assert f'"kit_version": "{kit_version()}"' in manifest and kit_version().startswith("0.")


def test_quiet_packing_prints_one_line(tmp_path, capsys):
    # make -s dist-student passes --quiet; without it, what is left out is one line, not one a file.
    dry = subprocess.run(["make", "-s", "-n", "dist-student"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert "--quiet" in dry.stdout
    assert dist.main(["student", "--no-html", "--quiet", "--out", str(tmp_path / "q")]) == 0
    lines = [l for l in capsys.readouterr().out.splitlines() if not l.startswith("note:")]
    assert len(lines) == 1 and lines[0].startswith("wrote ")
    assert dist.main(["student", "--no-html", "--out", str(tmp_path / "v")]) == 0
    lines = [l for l in capsys.readouterr().out.splitlines() if not l.startswith("note:")]
    assert len(lines) == 2 and lines[0].startswith("left out ") and "reference solution" in lines[0]


def test_student_edition_holds_no_secret(student_files):
    for name in student_files:
        assert dist.student_exclusion(name) is None or name == "EDITION.md", name
        assert "secret" not in Path(name).name.lower() or name.endswith(".py"), name


@pytest.mark.skipif(not HAS_PANDOC, reason="pandoc or Graphviz missing (make deps): no HTML handouts")
def test_student_edition_has_rendered_handouts(student_files):
    for lab in PACKED_LABS:
        assert f"handouts/html/{lab}.html" in student_files
    assert any(n.startswith("handouts/html/figures/") and n.endswith(".svg") for n in student_files)


def test_exclusion_rules():
    assert dist.student_exclusion("solutions/fw/fw.c")
    assert dist.student_exclusion("handouts/answers/fw.md")
    assert dist.student_exclusion("grader/tests/test_dist.py")
    assert dist.student_exclusion("course.secret")
    assert dist.student_exclusion("testcases/fw/secrets/term1.txt")
    assert dist.student_exclusion(".labkit-secret")
    assert dist.student_exclusion("x/y.z", extra=[("x/*", "named by a lab")]) == "named by a lab"
    for kept in ("starter/fw/fw.c", "labs/fw/main.cpp", "handouts/fw.md", "grader/hidden.py",
                 "testcases/fw/cases.toml", "jobs/slurm/check.sbatch"):
        assert dist.student_exclusion(kept) is None, kept


def test_a_lab_script_that_reads_the_solution_is_left_out(tmp_path):
    script = tmp_path / "labs" / "x" / "scripts"
    script.mkdir(parents=True)
    (script / "tune.sh").write_text("nvcc -Isolutions/x tune.cu\n")
    (script / "plot.py").write_text("# default: build/solution/x/x (make SOL=1 x)\n")
    assert dist.student_exclusion("labs/x/scripts/tune.sh", root=tmp_path)
    assert dist.student_exclusion("labs/x/scripts/gpu_verify.sh", root=tmp_path)
    assert dist.student_exclusion("labs/x/scripts/plot.py", root=tmp_path) is None


def test_a_lab_names_its_own_instructor_only_files(tmp_path):
    (tmp_path / "labs" / "x").mkdir(parents=True)
    (tmp_path / "labs" / "x" / "lab.toml").write_text('[dist]\ninstructor_only = ["labs/x/notes/*"]\n')
    (tmp_path / "labs" / "x" / "notes").mkdir()
    (tmp_path / "labs" / "x" / "notes" / "key.md").write_text("the answer\n")
    (tmp_path / "labs" / "x" / "main.cpp").write_text("int main() {}\n")
    files, left_out = dist.edition_files("student", tmp_path)
    assert files == ["labs/x/lab.toml", "labs/x/main.cpp"]
    assert "labs/x/notes/key.md" in left_out


def test_a_committed_secret_stops_the_student_edition(tmp_path):
    (tmp_path / "notes.txt").write_text("the term's secret: s3cr3t-s3cr3t-s3cr3t\n")
    with pytest.raises(dist.DistError, match="notes.txt holds the instructor's hidden-case secret"):
        dist.check_no_secret(["notes.txt"], tmp_path, secret=b"s3cr3t-s3cr3t-s3cr3t")
    key = tmp_path / "key"
    key.write_text("s3cr3t-s3cr3t-s3cr3t\n")
    assert dist.instructor_secret({"LABKIT_SECRET_FILE": str(key)}) == b"s3cr3t-s3cr3t-s3cr3t"
    assert dist.instructor_secret({"LABKIT_SECRET": " abc "}) == b"abc"
    assert dist.instructor_secret({}) is None


def test_instructor_edition_is_everything(tmp_path):
    tarball = dist.pack("instructor", tmp_path, html=False, log=lambda *_: None)
    files = members(tarball)
    assert set(dist.kit_files()) <= set(files)
    assert any(n.startswith("solutions/") for n in files)


def test_editions_are_reproducible(tmp_path):
    first = dist.pack("student", tmp_path / "a", html=False, log=lambda *_: None).read_bytes()
    second = dist.pack("student", tmp_path / "b", html=False, log=lambda *_: None).read_bytes()
    assert first == second


def test_missing_solutions_give_a_note_not_a_crash(monkeypatch, tmp_path):
    """On a GPU, the grader times the reference solution for the thresholds; the student edition
    has none, and says so."""
    import grader.timing as timing
    monkeypatch.setattr(timing, "SOLUTIONS_DIR", tmp_path / "solutions")
    timed = [lab for lab in map(load_lab, PACKED_LABS) if lab.timing.slow_factor > 0 and any(c.timed for c in lab.cases)]
    if not timed:
        pytest.skip("no lab has a timing threshold")
    lab = timed[0]
    grader = Grader(lab, Source("starter", STARTER_DIR), emu=False, groups=("public", "large"))
    report = Report(lab.id, "starter", False, [])
    reference = ReferenceTiming(lab, grader.cases, grader.source, grader.runner, emu=False, asan=False, checks=True,
                                gpus=grader.gpus)
    assert reference.reference_metrics(report) == {}
    assert any("no reference solution in this copy of the kit" in note for note in report.notes)


# ---- the student edition on its own ----------------------------------------------------------

@pytest.fixture(scope="module")
def unpacked_student_kit(student_tarball, student_files, tmp_path_factory) -> Path:
    if "labs/emu/include/cuda_runtime.h" not in student_files:
        pytest.skip("the CPU emulator (labs/emu) is not committed yet: the student edition cannot run EMU=1")
    where = tmp_path_factory.mktemp("student-kit")
    with tarfile.open(student_tarball) as tar:
        tar.extractall(where, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    root = where / "cuda-lab-kit-student"
    # The emulator's library, if this checkout has built it already, need not be built again:
    # what is under test is the edition's own files, the labs' harnesses among them (the other
    # tests of the edition take those from the kit's build). Then the checked labs' starters, on
    # every core, before grading one lab at a time.
    seed_kit_build(root, ("emu",))
    subprocess.run(["make", "-s", f"-j{os.cpu_count() or 2}", "EMU=1", "-k", *CHECKED_LABS], cwd=root,
                   capture_output=True, text=True, timeout=600)
    return root


@pytest.mark.parametrize("lab", CHECKED_LABS)
def test_make_check_runs_in_the_student_edition(unpacked_student_kit, lab):
    proc = subprocess.run(["make", "-s", "check", f"LAB={lab}", "EMU=1"], cwd=unpacked_student_kit,
                          capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-2000:]
    assert "Traceback" not in output, output[-2000:]
    assert "score:" in proc.stdout
    for case in (c for c in load_lab(lab).cases if c.group == "public"):
        line = next((l for l in proc.stdout.splitlines() if l.startswith(case.name + " ")), "")
        verdict = line.split()[1] if len(line.split()) > 1 else ""
        assert verdict in ("AC", "WA", "RE", "TLE", "SLOW"), f"{case.name}: {line or 'no line'}"


def test_sol_1_in_the_student_edition_says_there_are_no_solutions(unpacked_student_kit):
    for command in (["make", "-s", "check", "LAB=increment", "SOL=1"], ["make", "-s", "increment", "SOL=1"]):
        proc = subprocess.run(command, cwd=unpacked_student_kit, capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        assert len(lines) == 1 and "no solutions/ (the student edition" in lines[0], lines
        assert "make check LAB=increment" in lines[0] and "bwrap" not in lines[0]
    proc = subprocess.run([sys.executable, "-m", "grader", "check", "increment", "--solution"],
                          cwd=unpacked_student_kit, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "has no solutions/increment (the student edition" in proc.stderr


def test_an_unpacked_edition_packs_again(tmp_path):
    """Outside git (an instructor's unpacked edition) the kit is every file but build outputs
    and what packing adds, so packing it again gives no duplicate entries."""
    tarball = dist.pack("instructor", tmp_path / "a", html=False, log=lambda *_: None)
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path / "kit", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    root = tmp_path / "kit" / "cuda-lab-kit-instructor"
    (root / "handouts" / "html").mkdir()
    (root / "handouts" / "html" / "index.html").write_text("rendered\n")
    (root / "build").mkdir()
    (root / "build" / "x.o").write_text("object\n")
    files = dist.kit_files(root)
    assert "EDITION.md" not in files and not [f for f in files if f.startswith(("build/", "handouts/html/"))]
    assert set(files) == set(members(tarball)) - {"EDITION.md"}
    student, left_out = dist.edition_files("student", root)
    assert not [f for f in student if f.startswith("solutions/")] and left_out
