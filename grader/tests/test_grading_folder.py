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
