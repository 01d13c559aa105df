"""Every shell command a handout shows exists as shown, and runs without a GPU where it can
(shell_commands.py says how each kind is checked)."""

import shutil

import pytest

from authoring.handouts import handout_sources
from grader.paths import KIT_ROOT
from grader.testing import EMU_READY
from shell_commands import check_command, commands_in

if shutil.which("pandoc") is None:
    pytest.skip("pandoc is not installed (make deps installs it): the handouts cannot be read",
                allow_module_level=True)

COMMANDS = [cmd for source in handout_sources() for cmd in commands_in(source)]


def test_the_handouts_show_commands():
    assert len(COMMANDS) >= 5
    assert any(cmd.argv[0] == "make" for cmd in COMMANDS)


@pytest.mark.parametrize("cmd", COMMANDS, ids=[str(c) for c in COMMANDS])
def test_command_exists_and_runs(cmd, tmp_path):
    result = check_command(cmd, emu_ready=EMU_READY, work=tmp_path)
    assert not result.problems, f"{cmd}: " + "; ".join(result.problems)


def test_a_wrong_command_is_caught(tmp_path):
    """The checker itself: a typo in a target, a flag or a lab is reported."""
    from shell_commands import ShellCommand
    lab = sorted(p.parent.name for p in (KIT_ROOT / "labs").glob("*/lab.toml"))[0]
    bad = [ShellCommand("x.md", "make chek", ["make", "chek", f"LAB={lab}"]),
           ShellCommand("x.md", "make check LAB=nope", ["make", "check", "LAB=nope"]),
           ShellCommand("x.md", "make check LABS=x", ["make", "check", f"LAB={lab}", "NOSUCHVAR=1"]),
           ShellCommand("x.md", "grader", ["python3", "-m", "grader", "check", lab, "--no-such-flag"]),
           ShellCommand("x.md", "prog", ["./build/starter/" + lab + "/nope", "--n", "1"]),
           ShellCommand("x.md", "flag", ["./build/starter/" + lab + "/" + lab, "--no-such-flag", "1"]),
           ShellCommand("x.md", "bash", ["bash", "jobs/no-such-script.sh"])]
    for cmd in bad:
        result = check_command(cmd, emu_ready=False, work=tmp_path)
        assert result.problems, f"{cmd.argv} should have been refused"
