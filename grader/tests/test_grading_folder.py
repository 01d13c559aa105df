"""Each grading runs its cases in a folder of its own under build/grading: a sandbox user is
granted the folders above its runs (their group), so two gradings of one source at once (the
references of several labs in one verification round, two TAs) must never share such a folder:
each would take the other's access away mid-run ("Permission denied" on its output file)."""

from grader.intake import Source
from grader.grade import Grader
from grader.labs import load_lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR
from grader.program_files import remove_tree


def test_two_gradings_of_one_source_never_share_a_run_folder():
    lab = load_lab("increment")
    graders = [Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, sandbox="off", cases=[], log=lambda *_: None)
               for _ in range(2)]
    try:
        first, second = (g.folder for g in graders)
        assert first != second
        for grader in graders:
            # right under build/grading (whose folders are traverse-only): no folder above a run is shared
            assert grader.folder.parent == BUILD_DIR / "grading"
            assert grader.folder in grader.runner.work.parents
    finally:
        for grader in graders:
            remove_tree(grader.folder)


def test_two_gradings_of_one_submission_build_it_apart_and_drop_their_builds():
    # A submission is built from nothing for each grading: one grading's build cleared the
    # programs the other was running when both built in build/emu-sub-<name> (found on a GPU
    # node, a TA's check of a folder beside a batch grading it).
    lab = load_lab("increment")
    submission = Source("sub-same", SOLUTIONS_DIR / "increment", submission=True)
    graders = [Grader(lab, submission, emu=True, sandbox="off", cases=[], log=lambda *_: None) for _ in range(2)]
    roots = [g.builds.root() for g in graders]
    assert roots[0] != roots[1] and all(root.parent == BUILD_DIR / "grading" and root.is_dir() for root in roots)
    for grader in graders:
        remove_tree(grader.folder)
    del grader, graders  # the builds go with the Grader: a class of submissions leaves none behind
    assert not any(root.exists() for root in roots)
    reference = Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, sandbox="off", cases=[], log=lambda *_: None)
    assert reference.builds.root() == BUILD_DIR  # the kit's own trees keep one shared, up-to-date build
    remove_tree(reference.folder)
