"""Packs an edition of the kit: `make dist-student` or `make dist-instructor`, or
python3 -m authoring.dist student|instructor [--out DIR] [--no-html].

The instructor edition is everything the kit's git repository tracks (or, outside a git
checkout, every file but build outputs). The student edition is the same less what a student
must not see or cannot use:
    solutions/, handouts/answers/              reference solutions, answers to the spot checks
    tests/, grader/tests/, .ci/                the kit's own suites: they grade the solutions
    labs/*/scripts/*gpu_verify*                the GPU verification of the reference solution
    labs/*/scripts/* that name solutions/      scripts that read the reference solution (tuning
                                               its kernels, planting a bug in it)
    *.secret, secret(s)/, .labkit-secret*      an instructor's hidden-case secret, should one be
                                               committed by mistake (it belongs outside the kit)
    lab.toml [dist] instructor_only = [...]    anything else a lab names (globs, kit-relative)
Both editions carry the handouts rendered to HTML (handouts/html/, with figures) and EDITION.md,
which says what the edition holds. Untracked files never go in, so a secret or a submission
lying in the checkout stays out; and where the instructor's secret is at hand (LABKIT_SECRET_FILE
or LABKIT_SECRET, as for grading), a student edition with a file holding it is refused. The
tarballs are reproducible: sorted, owner root, fixed times.
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

from grader.labs import ConfigError, read_instructor_only
from grader import version
from grader.paths import BUILD_DIR, KIT_ROOT

DEFAULT_OUT = BUILD_DIR / "dist"
EDITIONS = ("student", "instructor")
# Outside git, never packed: build outputs, caches, and what pack() itself adds to an edition
# (so that an edition can be packed again from an unpacked one).
NOT_KIT = ("build/", ".git/", ".pytest_cache/", "__pycache__/", "handouts/html/", "EDITION.md")

# (glob on the kit-relative path, why a student edition leaves it out)
STUDENT_EXCLUDES = (
    ("solutions/*", "reference solution"),
    ("handouts/answers/*", "instructor's answers"),
    ("tests/*", "the kit's own tests (they need the solutions)"),
    ("grader/tests/*", "the kit's own tests (they need the solutions)"),
    (".ci/*", "the kit's CI"),
    ("labs/*/scripts/*gpu_verify*", "GPU verification of the reference solution"),
    ("*.secret", "a hidden-case secret"),
    ("*/secret/*", "a hidden-case secret"),
    ("secret/*", "a hidden-case secret"),
    ("*/secrets/*", "a hidden-case secret"),
    ("secrets/*", "a hidden-case secret"),
    ("*.labkit-secret*", "a hidden-case secret"),
    (".labkit-secret*", "a hidden-case secret"),
)
# A lab script that names the solutions' folder reads a solution's source: it would leak it.
# (One that only runs the reference build, SOL=1, stays: a student points it at their own.)
SOLUTION_MARKERS = ("solutions/",)
EDITION_NOTES = {
    "student": """\
This is the student edition: the starters, the labs' harnesses, the public testcases, the
handouts (handouts/*.md, and rendered in handouts/html/), the job scripts, the CPU emulator and
the grader. It has no reference solutions, no instructor answers and no hidden testcases.

    make <lab>                      build your code (starter/<lab>/*.c)
    make check LAB=<lab>            grade it on the public testcases (the CPU emulator where
                                    no GPU is found)
    make bench LAB=<lab>            your own code against the GPU's ceiling
    make submit LAB=<lab>           the tarball you hand in

Timing thresholds are relative to the reference solution, which this edition does not have:
`make check` here says "timing thresholds not checked"; your instructor's grading run applies
them. `SOL=1` and `make test` need the instructor edition. Every command the handouts show runs
here, on your own code.
""",
    "instructor": """\
This is the instructor edition: everything, including solutions/, handouts/answers/ and the
kit's tests. Hand students the student edition (`make dist-student`), never this one.
""",
}


def kit_files(root: Path = KIT_ROOT) -> list[str]:
    """Kit-relative paths of every file of the kit: what git tracks, or outside a git checkout
    every file but build outputs and caches."""
    if (root / ".git").exists():
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True)
        if proc.returncode == 0:
            names = [n for n in proc.stdout.decode().split("\0") if n]
            return sorted(n for n in names if (root / n).is_file() and not (root / n).is_symlink())
    files = []
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not path.is_symlink() and not any(
                rel.startswith(p) or (p.endswith("/") and f"/{p}" in f"/{rel}") for p in NOT_KIT) \
                and not rel.endswith("-submission.tar.gz"):
            files.append(rel)
    return sorted(files)


def uncommitted_note(root: Path = KIT_ROOT) -> str | None:
    """A warning when the checkout differs from its last commit: tracked files go in as they are
    now, untracked ones not at all, so an edition of a half-committed tree may not work."""
    proc = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    lines = proc.stdout.splitlines()
    untracked = [l[3:] for l in lines if l.startswith("??")]
    changed = len(lines) - len(untracked)
    return (f"note: {changed} tracked file(s) differ from the last commit and go in as they are now; "
            f"{len(untracked)} untracked file(s) are left out"
            + (f" (e.g. {', '.join(untracked[:3])})" if untracked else "") + "; see git status")


def _lab_excludes(root: Path) -> list[tuple[str, str]]:
    rules = []
    for lab_toml in sorted(root.glob("labs/*/lab.toml")):
        try:
            patterns = read_instructor_only(tomllib.loads(lab_toml.read_text()), str(lab_toml))
        except (OSError, tomllib.TOMLDecodeError, ConfigError):
            continue  # the grader reports a broken lab.toml; packing is not the place
        for pattern in patterns:
            rules.append((pattern, f"instructor-only in {lab_toml.relative_to(root)}"))
    return rules


def student_exclusion(rel: str, root: Path = KIT_ROOT, extra: list[tuple[str, str]] | None = None) -> str | None:
    """Why the student edition leaves `rel` out, or None if it goes in."""
    for pattern, why in list(STUDENT_EXCLUDES) + (extra or []):
        if fnmatch.fnmatchcase(rel, pattern):
            return why
    parts = rel.split("/")
    if len(parts) >= 4 and parts[0] == "labs" and parts[2] == "scripts":
        try:
            text = (root / rel).read_text(errors="replace")
        except OSError:
            return None
        if any(marker in text for marker in SOLUTION_MARKERS):
            return "a lab script that reads the reference solution"
    return None


class DistError(Exception):
    """An edition that must not be packed; the message says why."""


def instructor_secret(env: dict[str, str] | None = None) -> bytes | None:
    """The hidden-case secret where grading would find it (grader/hidden.py), if it is set."""
    env = os.environ if env is None else env
    if env.get("LABKIT_SECRET_FILE"):
        try:
            return Path(env["LABKIT_SECRET_FILE"]).read_bytes().strip() or None
        except OSError:
            return None
    return env.get("LABKIT_SECRET", "").strip().encode() or None


def check_no_secret(files: list[str], root: Path = KIT_ROOT, secret: bytes | None = None) -> None:
    secret = instructor_secret() if secret is None else secret
    if not secret:
        return
    for rel in files:
        if secret in (root / rel).read_bytes():
            raise DistError(f"{rel} holds the instructor's hidden-case secret: take it out of the kit "
                            f"(and make a new secret: python3 -m grader secret)")


def edition_files(edition: str, root: Path = KIT_ROOT) -> tuple[list[str], dict[str, str]]:
    """(files to pack, {left-out file: why})."""
    files = kit_files(root)
    if edition == "instructor":
        return files, {}
    extra = _lab_excludes(root)
    left_out = {rel: why for rel in files if (why := student_exclusion(rel, root, extra))}
    return [rel for rel in files if rel not in left_out], left_out


def kit_version(root: Path = KIT_ROOT) -> tuple[str, int]:
    """(version string, timestamp for the tarball's entries). The version is grader.version's,
    the one a submission's manifest carries."""
    when = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"],
                          capture_output=True, text=True)
    stamp = int(when.stdout.strip()) if when.returncode == 0 and when.stdout.strip() else \
        int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    return version.kit_version(root), stamp


def _render_html(edition: str, stage: Path) -> list[tuple[str, Path]]:
    """The handouts as HTML with their figures; the student edition's without the answers."""
    from authoring import figures, handouts
    out = stage / "html"
    figures.make_figures(out / "figures")
    out.mkdir(parents=True, exist_ok=True)
    (out / "style.css").write_bytes(handouts.STYLE.read_bytes())
    for source in handouts.handout_sources():
        if edition == "student" and source.is_relative_to(handouts.ANSWERS_DIR):
            continue
        handouts.render(source, out)
    return [(f"handouts/html/{p.relative_to(out).as_posix()}", p) for p in sorted(out.rglob("*")) if p.is_file()]


INSTRUCTOR_ONLY = re.compile(r"<!-- instructor-only -->.*?<!-- /instructor-only -->\n?", re.DOTALL)
STUDENT_ONLY = re.compile(r"<!-- student-only\n(.*?)-->\n?", re.DOTALL)
EDITION_COMMENT = re.compile(r"<!-- The student edition \(make dist-student.*?-->\n?", re.DOTALL)


def for_edition(text: str, edition: str) -> str:
    """A Markdown file as the edition shows it: the student edition drops each
    <!-- instructor-only --> ... <!-- /instructor-only --> part and shows each
    <!-- student-only ... --> one (README.md: a student's commands, not SOL=1)."""
    if edition != "student":
        return text
    return STUDENT_ONLY.sub(r"\1", INSTRUCTOR_ONLY.sub("", EDITION_COMMENT.sub("", text)))


def _add(tar: tarfile.TarFile, name: str, data: bytes, mtime: int, executable: bool) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), mtime
    info.mode = 0o755 if executable else 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    tar.addfile(info, io.BytesIO(data))


def left_out_summary(left_out: dict[str, str]) -> str:
    """One line for what the student edition leaves out: 'left out 190 files: 120 the kit's own
    tests ..., 15 reference solution, ...' (most first)."""
    counts: dict[str, int] = {}
    for why in left_out.values():
        counts[why] = counts.get(why, 0) + 1
    parts = [f"{n} {why}" for why, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return f"left out {len(left_out)} files: " + "; ".join(parts)


def pack(edition: str, out_dir: Path = DEFAULT_OUT, *, html: bool = True, root: Path = KIT_ROOT,
         log=print, verbose: bool = False) -> Path:
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}")
    files, left_out = edition_files(edition, root)
    if edition == "student":
        check_no_secret(files, root)
    if (note := uncommitted_note(root)) and (root / ".git").exists():
        log(note)
    if left_out:
        log(left_out_summary(left_out) + ("" if verbose else " (--verbose lists each)"))
    if verbose:
        for rel, why in sorted(left_out.items()):
            log(f"  left out {rel}: {why}")
    kit_label, mtime = kit_version(root)
    top = f"cuda-lab-kit-{edition}"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{top}.tar.gz"
    partial = out.with_name(out.name + ".partial")
    with tempfile.TemporaryDirectory() as stage:
        extra = _render_html(edition, Path(stage)) if html else []
        note = f"# CUDA lab kit, {edition} edition\n\n{version.edition_line(kit_label)}\n\n{EDITION_NOTES[edition]}"
        with open(partial, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for rel in files:
                path = root / rel
                data = path.read_bytes()
                if rel.endswith(".md") and b"-only" in data:
                    data = for_edition(data.decode(), edition).encode()
                _add(tar, f"{top}/{rel}", data, mtime, os.access(path, os.X_OK))
            for rel, path in extra:
                _add(tar, f"{top}/{rel}", path.read_bytes(), mtime, False)
            _add(tar, f"{top}/EDITION.md", note.encode(), mtime, False)
    partial.replace(out)
    log(f"wrote {out.relative_to(root) if out.is_relative_to(root) else out}: {len(files) + len(extra) + 1} files "
        f"({edition} edition{'' if html else ', no HTML handouts'})")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m authoring.dist", description="Packs an edition of the kit.")
    p.add_argument("edition", choices=EDITIONS)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT.relative_to(KIT_ROOT)}")
    p.add_argument("--no-html", action="store_true", help="leave out the rendered handouts (no pandoc needed)")
    p.add_argument("--verbose", action="store_true", help="name every file the student edition leaves out")
    p.add_argument("--quiet", action="store_true", help="print only the tarball written and warnings "
                   "(what `make -s` asks for)")
    args = p.parse_args(argv)
    from authoring.figures import FigureError
    from authoring.handouts import HandoutError
    try:
        quiet_log = lambda text: text.startswith(("wrote", "note:")) and print(text)  # noqa: E731
        pack(args.edition, args.out, html=not args.no_html, verbose=args.verbose,
             log=quiet_log if args.quiet else print)
    except (FigureError, HandoutError) as e:
        print(f"dist: error: {e} (or pack without the HTML handouts: --no-html)", file=sys.stderr)
        return 1
    except DistError as e:
        print(f"dist: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
