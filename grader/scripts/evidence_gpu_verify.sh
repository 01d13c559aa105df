#!/usr/bin/env bash
# GPU verification of the GPU evidence (issue 32), from the kit's root on a GPU node:
#   bash grader/scripts/evidence_gpu_verify.sh [EMU_PROFILES]
# Runs the references and the evidence corpus under the CUPTI tracer (as root, and as an
# unprivileged user made for it when run as root), holds each record against the emulated run's
# (EMU_PROFILES: from `python3 grader/scripts/evidence_verify.py emulate --out DIR` on any
# machine; made here when the folder is missing), checks the timing against the record, reads
# ncu's sectors where counters are allowed, and measures stale GPU memory between processes.
# Records, ncu tables and the log go to $OUT (or build/evidence-verify).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/evidence-verify}
emu=${1:-build/evidence-emu}
mkdir -p "$out" build/evidence
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
grep RmProfilingAdminOnly /proc/driver/nvidia/params || echo "no /proc/driver/nvidia/params"
command -v ncu >/dev/null && ncu --version | tail -1
[ -d "$emu" ] || python3 grader/scripts/evidence_verify.py emulate --out "$emu"

echo "== stale GPU memory: a writer fills 1 GiB and exits; a new process allocates 1 GiB and reads it"
nvcc -O2 -o build/evidence/stale_memory grader/evidence/stale_memory.cu || exit 1
tag=0x5eed1234
build/evidence/stale_memory write 1024 $tag
build/evidence/stale_memory read 1024 $tag

user_args=()
if [[ $(id -u) == 0 ]]; then
    user=labkit-evidence
    id -u "$user" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin "$user" || exit 1
    user_args=(--user "$user")
fi
echo "== records, timing and counters"
python3 grader/scripts/evidence_verify.py gpu --emu "$emu" --out "$out" "${user_args[@]}" --ncu
