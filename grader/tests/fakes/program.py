"""A fake lab program for the grader's tests: its first argument says how to misbehave.

    program.py MODE OUTPUT [N]
Modes: right, wrong, crash, hang, flood, nooutput, todo, cuda, usage, forked-hang, selfwrong,
wrongsaid, exit17.
It writes N float32 values 0..N-1 (the 'right' answer) to OUTPUT unless the mode says otherwise.
"""

import json
import os
import signal
import subprocess
import sys
import time
from array import array

mode, output = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 8


def found(kind, text, error=None):
    """What a harness records with labs/common/findings.h, beside the words on stderr."""
    path = os.environ.get("LABKIT_FINDINGS")
    if path:
        record = {"source": "harness", "kind": kind, "text": text, **({"error": error} if error else {})}
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")
    print(text, file=sys.stderr)


def write(values):
    with open(output, "wb") as f:
        f.write(array("f", values).tobytes())


right = [float(i) for i in range(n)]
result = os.environ.get("LABKIT_RESULT")
if result:
    with open(result, "w") as f:
        kernel_ms = float(os.environ.get("FAKE_KERNEL_MS", "1.0"))
        json.dump({"lab": "fake", "kernel_ms": kernel_ms, "total_ms": kernel_ms}, f)
    time.sleep(kernel_ms / 1000)  # an honest fake lives as long as it says it worked

if mode == "right":
    write(right)
elif mode == "wrong":
    write(right[:5] + [right[5] + 1] + right[6:])
elif mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "hang":
    time.sleep(3600)
elif mode == "forked-hang":
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    time.sleep(3600)
elif mode == "flood":
    chunk = "x" * 65536 + "\n"
    for _ in range(400):  # 26 MB
        sys.stdout.write(chunk)
    write(right)
elif mode == "nooutput":
    pass
elif mode == "todo":
    found("todo", "TODO not done: launch the kernel in launch_increment (increment.cu:32)")
    sys.exit(4)
elif mode == "cuda":
    found("cuda_error", "CUDA error: cudaMalloc(&d, bytes) failed at increment.cu:14: out of memory "
          "(cudaErrorMemoryAllocation)", "cudaErrorMemoryAllocation")
    sys.exit(3)
elif mode == "usage":
    print("fake: error: --n must be a whole number, got 'x'", file=sys.stderr)
    sys.exit(2)
elif mode == "selfwrong":
    write(right)
    print("WRONG: element 3")
    sys.exit(1)
elif mode == "wrongsaid":  # wrong, and its own check says how, as a harness does
    write(right[:5] + [right[5] + 1] + right[6:])
    print("n = 8, block size = 4")
    print("WRONG: element 5 of n = 8 is 6, expected 5: never touched")
    sys.exit(1)
elif mode == "exit17":
    print("something odd happened", file=sys.stderr)
    sys.exit(17)
