"""Installs what `make test` needs and a fresh machine may lack; prints what it does.

Debian packages come from apt-get (as root), Python packages from pip.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

# Debian package -> a file whose presence shows it is installed.
DEBIAN = {
    "libgtest-dev": "/usr/include/gtest/gtest.h",
    "g++": "/usr/bin/g++",
    "make": "/usr/bin/make",
    "pandoc": "/usr/bin/pandoc",  # make handouts
    "graphviz": "/usr/bin/dot",  # make figures
    "bubblewrap": "/usr/bin/bwrap",  # the grader's sandbox (grader/sandbox.py)
    "libboost-context-dev": "/usr/include/boost/context/detail/fcontext.hpp",  # EMU=1's fibers
}
PYPI = {"pytest": "pytest"}  # pip name -> module name


def missing_debian() -> list[str]:
    return [pkg for pkg, marker in DEBIAN.items() if not Path(marker).exists()]


def missing_pypi() -> list[str]:
    return [pkg for pkg, module in PYPI.items() if importlib.util.find_spec(module) is None]


def run(cmd: list[str]) -> None:
    print("deps:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def main() -> int:
    debian = missing_debian()
    if debian:
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            print(f"deps: missing Debian packages {' '.join(debian)}; install them with\n"
                  f"  sudo apt-get install -y {' '.join(debian)}", file=sys.stderr)
            return 1
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-q", *debian], check=True, env=env)
    pypi = missing_pypi()
    if pypi:
        run([sys.executable, "-m", "pip", "install", "-q", *pypi])
    return 0


if __name__ == "__main__":
    sys.exit(main())
