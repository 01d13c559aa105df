"""A one-node Slurm cluster on localhost, for the tests: munged, slurmctld and slurmd run as root
in the foreground from a config written into a temporary folder, on free ports, and are stopped
(by their process ids) at the end. Nothing under /etc is touched.

The node claims 8 CPUs, 16 GB and one GPU (SlurmdParameters=config_overrides; the GPU's device
file is /dev/null), so the kit's job scripts are accepted as they are written; the emulator
grades without the GPU (the grader passes --gres=none under --emu).

Debian's packages (slurmctld, slurmd, slurm-client, munge) are installed when missing, but only
where that is wanted: in CI (CI set) or with LABKIT_INSTALL_SLURM=1, as root with apt-get.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]
PROGRAMS = ["slurmctld", "slurmd", "munged", "mungekey", "sbatch", "squeue", "scancel", "sinfo"]
START_TIMEOUT_S = 60


class ClusterUnavailable(Exception):
    """Slurm cannot be started here; the message says why and what would fix it."""


def _which(program: str) -> str | None:
    return shutil.which(program) or next(
        (str(p) for p in (Path("/usr/sbin") / program, Path("/usr/bin") / program) if p.exists()), None)


def ensure_installed() -> None:
    missing = [p for p in PROGRAMS if _which(p) is None]
    if not missing:
        return
    install = f"apt-get install -y --no-install-recommends {' '.join(PACKAGES)}"
    if not (os.environ.get("CI") or os.environ.get("LABKIT_INSTALL_SLURM")):
        raise ClusterUnavailable(f"Slurm is not installed ({', '.join(missing)} missing): `sudo {install}`, "
                                 f"or set LABKIT_INSTALL_SLURM=1 to let the tests install it")
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise ClusterUnavailable(f"Slurm is not installed and installing it needs root and apt-get: `sudo {install}`")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print(f"slurm_cluster: installing {' '.join(PACKAGES)}", flush=True)
    for cmd in (["apt-get", "update", "-q"], install.split()):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise ClusterUnavailable(f"`{' '.join(cmd)}` failed: {proc.stderr.strip()[-500:]}")
    missing = [p for p in PROGRAMS if _which(p) is None]
    if missing:
        raise ClusterUnavailable(f"after installing {' '.join(PACKAGES)}, still missing: {', '.join(missing)}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmCluster:
    def __init__(self, root: Path):
        self.root = root
        self.host = socket.gethostname().split(".")[0]
        self.conf = root / "slurm.conf"
        self.munge_socket = root / "munge" / "munge.socket"
        self.procs: dict[str, subprocess.Popen] = {}

    @property
    def env(self) -> dict[str, str]:
        """What a Slurm command needs to find this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    def command(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(list(argv), env={**os.environ, **self.env}, capture_output=True, text=True,
                              timeout=timeout)

    def _write_config(self) -> None:
        root = self.root
        for folder in ("munge", "ctld", "d", "log"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        (root / "munge").chmod(0o711)
        self.conf.write_text(f"""\
# A one-node test cluster (tests/cluster/slurm_cluster.py).
ClusterName=labkit-test
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
StateSaveLocation={root / 'ctld'}
SlurmdSpoolDir={root / 'd'}
SlurmctldPidFile={root / 'slurmctld.pid'}
SlurmdPidFile={root / 'slurmd.pid'}
SlurmctldLogFile={root / 'log' / 'slurmctld.log'}
SlurmdLogFile={root / 'log' / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
KillWait=5
GresTypes=gpu
NodeName={self.host} NodeAddr=127.0.0.1 CPUs=8 RealMemory=16000 Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes={self.host} Default=YES MaxTime=INFINITE State=UP
""")
        (root / "gres.conf").write_text(f"AutoDetect=off\nNodeName={self.host} Name=gpu File=/dev/null\n")

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = (self.root / "log" / f"{name}.out").open("w")
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env={**os.environ, **self.env}, start_new_session=True)

    def _log_tail(self, name: str) -> str:
        try:
            return (self.root / "log" / f"{name}.out").read_text(errors="replace")[-800:]
        except OSError:
            return ""

    def start(self) -> None:
        if os.geteuid() != 0:
            raise ClusterUnavailable("slurmd must run as root to start jobs; run the tests as root (CI does)")
        ensure_installed()
        self._write_config()
        key = self.root / "munge" / "munge.key"
        subprocess.run([_which("mungekey"), "--create", "--keyfile", str(key), "--bits", "1024"], check=True,
                       capture_output=True, timeout=30)
        key.chmod(0o400)
        munge = self.root / "munge"
        self._spawn("munged", [_which("munged"), "--foreground", "--force", f"--socket={self.munge_socket}",
                               f"--key-file={key}", f"--pid-file={munge / 'munged.pid'}",
                               f"--log-file={self.root / 'log' / 'munged.log'}", f"--seed-file={munge / 'seed'}"])
        self._wait_for(lambda: self.munge_socket.exists(), "munged to open its socket", "munged")
        self._spawn("slurmctld", [_which("slurmctld"), "-D", "-f", str(self.conf)])
        self._spawn("slurmd", [_which("slurmd"), "-D", "-f", str(self.conf), "-N", self.host])
        self._wait_for(self._node_ready, "the node to be idle in sinfo", "slurmctld", "slurmd")

    def _node_ready(self) -> bool:
        proc = self.command("sinfo", "-h", "-N", "-o", "%T", timeout=20)
        return proc.returncode == 0 and proc.stdout.strip() in ("idle", "mixed", "allocated")

    def _wait_for(self, ready, what: str, *daemons: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            for name in daemons:
                if self.procs[name].poll() is not None:
                    raise ClusterUnavailable(f"{name} exited at start ({self.procs[name].returncode}): "
                                             f"{self._log_tail(name)}")
            try:
                if ready():
                    return
            except subprocess.TimeoutExpired:
                pass
            time.sleep(0.5)
        tails = "\n".join(f"--- {name}:\n{self._log_tail(name)}" for name in daemons)
        raise ClusterUnavailable(f"gave up after {START_TIMEOUT_S} s waiting for {what}\n{tails}")

    def stop(self) -> None:
        """Cancels what is left in the queue, then stops the daemons it started, newest first."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            try:
                self.command("scancel", "--full", "--user=root", timeout=20)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and self.command("squeue", "-h", timeout=20).stdout.strip():
                    time.sleep(0.5)
            except subprocess.TimeoutExpired:
                pass
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
