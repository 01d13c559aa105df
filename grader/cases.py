"""Makes a lab's testcases ready to run: committed files as they are, generated ones from the
manifest (testcases/<lab>/cases.toml) through the lab's generator, testcases/<lab>/gen.py.

A generated case names its generator's parameters and the SHA-256 of its input and expected
output; what is made is checked against them, and cached under build/cases/<lab>/ (a cached
file is re-checked, so a TA can trust it).

gen.py provides:
    make_input(params: dict, path: Path) -> None           (only for cases with an input)
    make_expected(params: dict, input_path: Path | None, path: Path) -> None
Expected outputs come from an algorithm independent of the one under test (docs/design.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from grader.labs import Case, ConfigError, Lab
from grader.paths import BUILD_DIR
from grader.shared_files import make_atomically


@dataclass(frozen=True)
class ReadyCase:
    case: Case
    input_path: Path | None
    expected_path: Path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def load_generator(lab: Lab):
    path = lab.testcases_dir / "gen.py"
    if not path.exists():
        raise ConfigError(f"{path} is missing: lab {lab.id} has generated cases")
    spec = importlib.util.spec_from_file_location(f"labkit_gen_{lab.id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _made(path: Path, want_sha: str | None, make, what: str, check: bool) -> Path:
    """Returns path, (re)making it when missing or when it does not match want_sha."""
    if path.exists() and (want_sha is None or sha256_of(path) == want_sha):
        return path
    make_atomically(path, make)
    if check and want_sha is not None and sha256_of(path) != want_sha:
        raise ConfigError(f"{what} does not match the SHA-256 in the manifest: the generator "
                          f"changed or the manifest is stale (python3 -m grader cases <lab> --print-sha)")
    return path


def prepare(lab: Lab, case: Case, *, cache_dir: Path | None = None, check: bool = True) -> ReadyCase:
    folder = lab.testcases_dir
    cache = (cache_dir or BUILD_DIR / "cases" / lab.id)
    generator = None

    input_path = None
    if case.input is not None:
        input_path = folder / case.input
        if not input_path.exists():
            raise ConfigError(f"case {case.name}: input {input_path} is missing")
    elif case.input_sha256 is not None:
        generator = generator or load_generator(lab)
        input_path = _made(cache / f"{case.name}.in", case.input_sha256,
                           lambda p: generator.make_input(case.params, p),
                           f"case {case.name}: generated input", check)

    if case.expected is not None:
        expected_path = folder / case.expected
        if not expected_path.exists():
            raise ConfigError(f"case {case.name}: expected output {expected_path} is missing")
    else:
        generator = generator or load_generator(lab)
        expected_path = _made(cache / f"{case.name}.expected", case.expected_sha256,
                              lambda p: generator.make_expected(case.params, input_path, p),
                              f"case {case.name}: generated expected output", check)
    return ReadyCase(case, input_path, expected_path)


def argv_for(program: Path, ready: ReadyCase, output_path: Path) -> list[str]:
    """The program's command line: the case's args with {input}, {output} and its params filled."""
    values = {**ready.case.params, "output": str(output_path),
              "input": str(ready.input_path) if ready.input_path else ""}
    try:
        return [str(program)] + [arg.format_map(values) for arg in ready.case.args]
    except KeyError as e:
        raise ConfigError(f"case {ready.case.name}: argument names {e}, which it does not define") from None
