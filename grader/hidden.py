"""Hidden testcases: made at grading time from a secret the instructor keeps outside the kit.

A lab's testcases/<lab>/cases.toml may hold recipes next to its public cases:

    [[hidden]]
    name = "hidden"          # the cases are hidden-1 ... hidden-<count>
    program = "prog"         # one of the lab's programs
    count = 3
    points = 10              # each
    time_limit_s = 30
    timed = false
    input = false            # true: gen.py's make_input makes an input file ({input})
    args = ["--n", "{n}", "--seed", "{seed}", "--out", "{output}"]
    params = { n = { range = [1, 3000000] }, block = { choice = [32, 96, 256] }, seed = { seed = true }, reps = 2 }

A parameter is a plain value, { range = [lo, hi] } (an integer, both ends included),
{ choice = [...] } (one of the list) or { seed = true } (an integer in 1 .. 2^31-1). Each is
HMAC-SHA256(secret, "<lab>/<recipe>/<case number>/<parameter>"): the same secret always gives
the same cases (a regrade is consistent, the files can be cached), a new secret gives new
ones, and the recipe, which students may read, says only the ranges. Inputs and expected
outputs come from the lab's own gen.py, as for the public cases, into build/hidden/<lab>/<id>/
(id: the secret's fingerprint), which no sandboxed program can see.

The secret: `--secret-file PATH`, else the file named by LABKIT_SECRET_FILE, else the value of
LABKIT_SECRET; at least 16 characters. `python3 -m grader secret` prints a fresh one. Keep it
out of the kit (and out of the student edition); rotate it each term.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from grader.cases import ReadyCase, load_generator
from grader.shared_files import make_atomically
from grader.labs import Case, Compare, ConfigError, Lab
from grader.paths import BUILD_DIR

MIN_SECRET_CHARS = 16
HIDDEN_GROUP = "hidden"


@dataclass(frozen=True)
class Secret:
    value: bytes
    source: str  # where it came from, for messages (never the value)
    path: Path | None = None  # the file it was read from: no graded program may see it

    def derive(self, label: str) -> int:
        digest = hmac.new(self.value, label.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big")

    @property
    def fingerprint(self) -> str:
        """A short name for the secret that says nothing about it: tells two secrets apart."""
        return hmac.new(self.value, b"labkit fingerprint", hashlib.sha256).hexdigest()[:12]


def new_secret() -> str:
    return secrets.token_hex(32)


def load_secret(secret_file: Path | None = None, env: dict[str, str] | None = None) -> Secret | None:
    """The instructor's secret from a file or the environment; None when none is given."""
    env = os.environ if env is None else env
    if secret_file is None and env.get("LABKIT_SECRET_FILE"):
        secret_file = Path(env["LABKIT_SECRET_FILE"])
    if secret_file is not None:
        try:
            value = Path(secret_file).read_bytes().strip()
        except OSError as e:
            raise ConfigError(f"cannot read the secret file {secret_file}: {e.strerror}") from None
        source = f"file {secret_file}"
    elif env.get("LABKIT_SECRET"):
        value, source = env["LABKIT_SECRET"].strip().encode(), "LABKIT_SECRET"
    else:
        return None
    if len(value) < MIN_SECRET_CHARS:
        raise ConfigError(f"the secret in {source} has {len(value)} characters; use at least "
                          f"{MIN_SECRET_CHARS} (python3 -m grader secret prints a fresh one)")
    return Secret(value, source, Path(secret_file) if secret_file is not None else None)


def _param(secret: Secret, label: str, spec, where: str):
    if not isinstance(spec, dict):
        return spec
    number = secret.derive(label)
    if "range" in spec:
        low, high = spec["range"]
        if not (isinstance(low, int) and isinstance(high, int) and low <= high):
            raise ConfigError(f"{where}: range must be two whole numbers, low <= high, got {spec['range']}")
        return low + number % (high - low + 1)
    if "choice" in spec:
        if not spec["choice"]:
            raise ConfigError(f"{where}: choice is an empty list")
        return spec["choice"][number % len(spec["choice"])]
    if spec.get("seed"):
        return 1 + number % (2**31 - 1)
    raise ConfigError(f"{where}: a parameter table needs range, choice or seed, got {spec}")


def hidden_cases(lab: Lab, secret: Secret | None) -> list[Case]:
    """Every hidden case of the lab, its parameters drawn from the secret (None: the cases'
    names, points and limits alone, as an LMS bundle lists them)."""
    where = lab.testcases_dir / "cases.toml"
    cases = []
    for recipe in lab.hidden_recipes:
        try:
            name, program, count = recipe["name"], recipe["program"], int(recipe.get("count", 1))
            args = tuple(str(a) for a in recipe["args"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{where}: hidden recipe {recipe.get('name', '?')!r} is malformed ({e})") from None
        if program not in lab.programs:
            raise ConfigError(f"{where}: hidden recipe {name!r} runs {program!r}, which is not one of "
                              f"the lab's programs {lab.programs}")
        compare = Compare(**{**lab.compare.__dict__, **recipe["compare"]}) if "compare" in recipe else None
        for number in range(1, count + 1):
            params = {key: _param(secret, f"{lab.id}/{name}/{number}/{key}", spec,
                                  f"{where}: hidden {name!r} parameter {key!r}")
                      for key, spec in dict(recipe.get("params", {})).items()} if secret else {}
            params["_input"] = bool(recipe.get("input", False))
            cases.append(Case(name=f"{name}-{number}", group=HIDDEN_GROUP, program=program, args=args,
                              points=float(recipe.get("points", 1)),
                              time_limit_s=float(recipe.get("time_limit_s", 60)), params=params,
                              compare=compare, timed=bool(recipe.get("timed", False))))
    return cases


def hidden_dir(lab: Lab, secret: Secret) -> Path:
    return BUILD_DIR / "hidden" / lab.id / secret.fingerprint


def prepare_hidden(lab: Lab, case: Case, secret: Secret) -> ReadyCase:
    """Makes the case's input and expected output (once per secret) with the lab's gen.py."""
    folder = hidden_dir(lab, secret)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    generator = load_generator(lab)
    params = {k: v for k, v in case.params.items() if not k.startswith("_")}
    input_path = None
    if case.params.get("_input"):
        input_path = folder / f"{case.name}.in"
        if not input_path.exists():
            make_atomically(input_path, lambda p: generator.make_input(params, p))
    expected_path = folder / f"{case.name}.expected"
    if not expected_path.exists():
        make_atomically(expected_path, lambda p: generator.make_expected(params, input_path, p))
    return ReadyCase(case, input_path, expected_path)
