"""A lab is its folders: the grader's code names no lab (docs/design.md). A lab's own checks,
wording and facts live in labs/<lab>/ (lab.toml, work_checks.py); the grader reads them.

The grader's code is its Python package outside its tests and its C++ and CUDA sources (the GPU
tracer), comments and docstrings included: an example there is read as the grader knowing a lab. (grader/scripts/ holds verification scripts
run by hand on named labs, and the documents cite labs as examples: neither is looked at.)"""

import re

from grader.labs import lab_ids
from grader.paths import KIT_ROOT

GRADER = KIT_ROOT / "grader"
CODE_SUFFIXES = (".py", ".cpp", ".cu", ".h", ".sh")
# Labs being written on other branches this round, before their folders land here.
COMING_LABS = ("nbody", "spmv")
# Files being rewritten elsewhere this round; their hits are to go with that rewrite, and this
# list with them. A file listed here that names no lab any more fails too: take it off.
PENDING: set[str] = set()


def lab_names_in_grader(grader=GRADER) -> dict[str, list[str]]:
    """file (relative to grader/) -> its lines that name a lab, as 'line: text'."""
    ids = sorted(set(lab_ids()) | set(COMING_LABS))
    word = re.compile(rf"\b({'|'.join(map(re.escape, ids))})\b")
    hits = {}
    for path in sorted(grader.rglob("*")):
        relative = path.relative_to(grader)
        if relative.parts[0] in ("tests", "scripts") or path.suffix not in CODE_SUFFIXES or not path.is_file():
            continue
        lines = [f"{number}: {line.strip()}" for number, line in enumerate(path.read_text().splitlines(), 1)
                 if word.search(line)]
        if lines:
            hits[relative.as_posix()] = lines
    return hits


def test_the_grader_names_no_lab():
    hits = lab_names_in_grader()
    named = {file: lines for file, lines in hits.items() if file not in PENDING}
    assert not named, ("the grader names a lab; move the lab's part to labs/<lab>/ (lab.toml, work_checks.py) "
                       "and word the grader's without it:\n" +
                       "\n".join(f"grader/{file}:{line}" for file, lines in named.items() for line in lines))
    cleared = sorted(PENDING - set(hits))
    assert not cleared, f"these name no lab any more: take them off PENDING: {', '.join(cleared)}"


def test_a_lab_named_in_the_grader_is_found(tmp_path):
    """The search itself: a lab's id as a word counts, in code or a comment; a longer name that
    starts with it does not, nor do the grader's own tests."""
    lab = lab_ids()[0]
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(f"LAB = '{lab}'\n")
    (tmp_path / "run.py").write_text(f"x = 1\n# as {lab}'s harness does\n{lab}_kernel = 2\n")
    (tmp_path / "tracer.cpp").write_text(f"// records {lab}'s launches\n")
    (tmp_path / "NOTES.md").write_text(f"as {lab} does\n")  # a document: an example, not code
    assert lab_names_in_grader(tmp_path) == {"run.py": [f"2: # as {lab}'s harness does"],
                                             "tracer.cpp": [f"1: // records {lab}'s launches"]}
