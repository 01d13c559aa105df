"""The GPU-evidence corpus: expectations.toml's table read, and each submission graded on its
cases, on a GPU node (--gpu) or under the CPU emulator, with the table held against the report.

    python3 tests/hostile/evidence/evidence_corpus.py [--gpu] [NAME ...]

Under the emulator a gpu_only submission must be AC on every case it runs (it does the work
there); GPU-sized cases (group "large") run only with --gpu. With --gpu, an entry whose
min_devices the node lacks is skipped, saying so. Its GPU expectations hold once the grader
compares the GPU record with the emulated run (grader/evidence/README.md); until then they fail.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from grader.build import Source  # noqa: E402
from grader.grade import Grader  # noqa: E402
from grader.gpu import gpu_count  # noqa: E402
from grader.labs import load_lab  # noqa: E402
from grader.paths import STARTER_DIR  # noqa: E402
from grader.testing import hand_in  # noqa: E402

TABLE = HERE / "expectations.toml"


@dataclass(frozen=True)
class Want:
    case: str
    verdicts: tuple[str, ...] = ()
    reason: tuple[str, ...] = ()
    timing: tuple[str, ...] = ()  # words of the timing note: the case's timing must be flagged


@dataclass(frozen=True)
class Entry:
    name: str
    lab: str
    what: str
    cases: tuple[str, ...]
    programs: tuple[str, ...] = ()
    gpu_only: bool = False
    min_devices: int = 1
    gpu: tuple[Want, ...] = ()
    emu: tuple[Want, ...] = ()

    @property
    def folder(self) -> Path:
        return HERE / self.lab / self.name


def _wants(raw: list[dict]) -> tuple[Want, ...]:
    return tuple(Want(w["case"], tuple(w.get("verdict", ())), tuple(w.get("reason", ())), tuple(w.get("timing", ())))
                 for w in raw)


def load_table(path: Path = TABLE) -> dict[str, Entry]:
    return {name: Entry(name, raw["lab"], raw["what"], tuple(raw["cases"]), tuple(raw.get("programs", ())),
                        raw.get("gpu_only", False), raw.get("min_devices", 1), _wants(raw.get("gpu", [])),
                        _wants(raw.get("emu", [])))
            for name, raw in tomllib.loads(path.read_text()).items()}


def cases_to_run(entry: Entry, *, gpu: bool) -> list[str]:
    by_name = {c.name: c for c in load_lab(entry.lab).cases}
    return [c for c in entry.cases if gpu or by_name[c].group != "large"]


def problems(entry: Entry, report, *, gpu: bool) -> list[str]:
    wants = {w.case: w for w in (entry.gpu if gpu else entry.emu)}
    found = []
    for result in report.results:
        want = wants.get(result.case)
        if want is None:
            if result.verdict != "AC":
                found.append(f"{result.case}: got {result.verdict} ({result.reason}), wanted AC")
        elif want.timing:
            if not (result.timing_flagged and all(w in result.timing_note for w in want.timing)):
                found.append(f"{result.case}: timing not flagged with {list(want.timing)} ({result.timing_note!r})")
        elif result.verdict not in want.verdicts or not all(w in result.reason for w in want.reason):
            found.append(f"{result.case}: got {result.verdict} ({result.reason}), wanted "
                         f"{'/'.join(want.verdicts)} with {list(want.reason)}")
    return found


def handed_in(entry: Entry) -> Path:
    """The submission as a student hands it in (testing.hand_in): the starter's files, with the
    entry's own on top (an entry holds only the programs it was written for)."""
    return hand_in(f"evidence-{entry.name}", STARTER_DIR / entry.lab, entry.folder)


def grade(entry: Entry, *, gpu: bool):
    lab = load_lab(entry.lab)
    by_name = {c.name: c for c in lab.cases}
    grader = Grader(lab, Source(f"sub-evidence-{entry.name}", handed_in(entry), submission=True), emu=not gpu,
                    log=lambda *_: None, cases=[by_name[c] for c in cases_to_run(entry, gpu=gpu)])
    return grader.grade()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpu", action="store_true", help="build for the GPU and grade there (default: the emulator)")
    p.add_argument("names", nargs="*")
    args = p.parse_args(argv)
    table = load_table()
    failed = 0
    for name in args.names or sorted(table):
        entry = table[name]
        if args.gpu and gpu_count() < entry.min_devices:
            print(f"skip {name}: needs {entry.min_devices} GPUs, this node has {gpu_count()}")
            continue
        if not cases_to_run(entry, gpu=args.gpu):
            print(f"skip {name}: its cases are GPU-sized")
            continue
        found = problems(entry, grade(entry, gpu=args.gpu), gpu=args.gpu)
        failed += bool(found)
        print(f"{'ok ' if not found else 'BAD'} {entry.lab:9s} {name:28s} {'; '.join(found)[:300]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
