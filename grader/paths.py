"""Where the kit's trees are: everything is found from the kit's root, never hard-coded."""

from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parent.parent
LABS_DIR = KIT_ROOT / "labs"
STARTER_DIR = KIT_ROOT / "starter"
SOLUTIONS_DIR = KIT_ROOT / "solutions"
TESTCASES_DIR = KIT_ROOT / "testcases"
BUILD_DIR = KIT_ROOT / "build"
