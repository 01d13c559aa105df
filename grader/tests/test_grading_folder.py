"""Each grading runs its cases in a folder of its own under build/grading: a sandbox user is
granted the folders above its runs (their group), so two gradings of one source at once (the
references of several labs in one verification round, two TAs) must never share such a folder:
each would take the other's access away mid-run ("Permission denied" on its output file). The
folder is reserved by the first run and removed when the grading ends: a Grader that is never
asked to grade leaves nothing behind."""

from grader.case_run import GradingFolder
from grader.intake import Source
from grader.grade import Grader
from grader.labs import load_lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR


def test_two_gradings_of_one_source_never_share_a_run_folder(tmp_path):
    lab = load_lab("increment")
    graders = [Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, sandbox="off", cases=[], log=lambda *_: None)
               for _ in range(2)]
    assert not any(g.folder.reserved for g in graders)  # nothing made before a run needs it
    assert all(g.folder.parent == BUILD_DIR / "grading" for g in graders)  # traverse-only: no folder above shared
    for grader in graders:
        grader.folder.parent = tmp_path
    first, second = (g.folder.path() for g in graders)
    assert first != second and first.parent == second.parent == tmp_path
    for grader in graders:
        grader.folder.release()
    assert not first.exists() and not second.exists()


def test_the_folder_goes_when_the_grading_ends_and_a_new_one_comes_with_the_next(tmp_path):
    folder = GradingFolder("solution-increment.", parent=tmp_path)
    first = folder.path()
    assert folder.path() == first and first.is_dir()  # one grading, one folder
    (first / "increment").mkdir()
    folder.release()
    assert not first.exists() and not folder.reserved
    assert folder.path().is_dir()
    folder.release()
    assert list(tmp_path.iterdir()) == []


def test_two_gradings_of_one_submission_build_it_apart_and_drop_their_builds():
    # A submission is built from nothing for each grading: one grading's build cleared the
    # programs the other was running when both built in build/emu-sub-<name> (found on a GPU
    # node, a TA's check of a folder beside a batch grading it).
    lab = load_lab("increment")
    submission = Source("sub-same", SOLUTIONS_DIR / "increment", submission=True)
    graders = [Grader(lab, submission, emu=True, sandbox="off", cases=[], log=lambda *_: None) for _ in range(2)]
    roots = [g.builds.root() for g in graders]
    assert roots[0] != roots[1] and all(root.parent == BUILD_DIR / "grading" and root.is_dir() for root in roots)
    del graders  # the builds go with the Grader: a class of submissions leaves none behind
    assert not any(root.exists() for root in roots)
    reference = Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, sandbox="off", cases=[], log=lambda *_: None)
    assert reference.builds.root() == BUILD_DIR  # the kit's own trees keep one shared, up-to-date build
