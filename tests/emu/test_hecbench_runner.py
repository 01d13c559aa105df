"""labs/emu/conformance/hecbench.py on a made-up HeCBench checkout: each program built with its
own Makefile and nvcc-emu, run with its Makefile's run arguments, judged by its own verdict,
and the rest classified (a CUDA library, a missing input, a build error, a timeout that runs
again with smaller arguments, a program that checks nothing); the pass rate's denominator
leaves out, and counts, the programs that check nothing and those whose inputs are missing."""

import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HECBENCH = os.path.join(ROOT, "labs", "emu", "conformance", "hecbench.py")

MAKEFILE = textwrap.dedent("""\
    CC = nvcc
    LAUNCHER =
    program = main
    main: main.cu Makefile
    \t$(CC) -O1 -arch=$(ARCH) main.cu -o main
    clean:
    \trm -f main
    run: $(program)
    \t$(LAUNCHER) ./$(program) {args}
    """)


def program(src, name, source, args=""):
    folder = src / name
    folder.mkdir(parents=True)
    (folder / "Makefile").write_text(MAKEFILE.format(args=args))
    (folder / "main.cu").write_text(textwrap.dedent(source))


def test_programs_are_built_run_and_classified(tmp_path):
    src = tmp_path / "src"
    program(src, "good-cuda", """\
        #include <cstdio>
        #include <cstdlib>
        __global__ void twice(int *x) { x[threadIdx.x] *= 2; }
        int main(int argc, char **argv)
        {
            int n = atoi(argv[1]), *x;
            cudaMallocManaged(&x, n * sizeof(int));
            for (int i = 0; i < n; ++i) x[i] = i;
            twice<<<1, n>>>(x);
            cudaDeviceSynchronize();
            printf("%s\\n", x[n - 1] == 2 * (n - 1) ? "PASS" : "FAIL");
        }
        """, "64")
    program(src, "wrong-cuda", '#include <cstdio>\nint main() { printf("FAIL\\n"); }\n')
    program(src, "slow-cuda", """\
        #include <cstdio>
        #include <cstdlib>
        #include <unistd.h>
        int main(int argc, char **argv) { if (atoi(argv[1]) > 200) sleep(60); printf("PASS\\n"); }
        """, "3200")
    program(src, "blas-cuda", '#include <cublas_v2.h>\nint main() {}\n')
    program(src, "data-cuda", "int main() {}\n", "../data/graph.txt")
    # An input named by its suffix alone (cc's delaunay_n24.egr), or one the program says it
    # could not find (gd's gisette_scale); 0.5 is a number, not a file.
    program(src, "graph-cuda", "int main() {}\n", "delaunay_n24.egr 0.5")
    program(src, "told-cuda", '#include <cstdio>\nint main() { puts("Could not find the SMV file"); puts("FAIL"); return 1; }\n',
            "gisette_scale 0.5")
    program(src, "broken-cuda", '#include <cstdio>\nint main() { printf("PASS"); return missing_function(); }\n')
    # No verdict anywhere in its sources: not built; a verdict it never printed: unverified.
    program(src, "silent-cuda", '#include <cstdio>\nint main() { printf("checksum %d\\n", 42); }\n')
    program(src, "quiet-cuda", '#include <cstdio>\nint main(int argc, char **) { if (argc > 5) printf("FAIL\\n"); }\n')
    # An argument that is a script naming a file the folder has (logic-rewrite's) is no input
    # missing; a build stopped by a file packed in DVC (sad's header) is one.
    program(src, "script-cuda", '#include <cstdio>\nint main() { printf("PASS\\n"); }\n',
            "-c 'read ./inputs/x.aig; balance; write x_balanced.aig'")
    (src / "script-cuda" / "inputs").mkdir()
    (src / "script-cuda" / "inputs" / "x.aig").write_text("aig")
    program(src, "dvc-cuda", '#include "packed.hpp"\nint main() { puts("PASS"); }\n')
    (src / "dvc-cuda" / "data.tar.gz.dvc").write_text("outs: []\n")
    # The header packed in DVC beside another version of the program, which the Makefile names.
    program(src, "shared-dvc-cuda", '#include "refdata.h"\nint main() { puts("PASS"); }\n')
    with open(src / "shared-dvc-cuda" / "Makefile", "a") as makefile:
        makefile.write("CFLAGS += -I../shared-dvc-omp\n")
    (src / "shared-dvc-omp").mkdir()
    (src / "shared-dvc-omp" / "refdata.tar.gz.dvc").write_text("outs: []\n")
    program(src, "mpi-cuda", '#include <mpi.h>\nint main() { puts("PASS"); }\n')
    # Sizes fixed in the source, a smaller build offered by its Makefile (sosfil's DEBUG=yes).
    program(src, "debug-cuda", """\
        #include <cstdio>
        #include <unistd.h>
        int main() {
        #ifndef DEBUG
            sleep(60);
        #endif
            puts("PASS");
        }
        """)
    makefile = (src / "debug-cuda" / "Makefile").read_text().replace("-O1", "-O1 $(CFLAGS)")
    (src / "debug-cuda" / "Makefile").write_text("ifeq ($(DEBUG),yes)\nCFLAGS = -DDEBUG\nendif\n" + makefile)
    # Sizes that are constants of its source (aligned-types' MEM_SIZE): built from a resized copy.
    program(src, "sized-cuda", """\
        #include <cstdio>
        #include <unistd.h>
        const int SIZE = 3200;
        int main() { if (SIZE > 100) sleep(60); puts("PASS"); }
        """)
    smaller = tmp_path / "hecbench_args.json"
    smaller.write_text(json.dumps({"about": "a test's", "args": {"good-cuda": ["32"]},
                                    "make": {"debug-cuda": ["DEBUG=yes"]},
                                    "resize": {"sized-cuda": {"SIZE": "32"}}}))
    result = subprocess.run([sys.executable, HECBENCH, "--hecbench", str(tmp_path), "--timeout", "3", "--shrink", "64",
                             "--args", str(smaller),
                             "--jobs", "4", "--json", str(tmp_path / "results.json"), "--snapshot", "f27000a5188f"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert {name: r["status"] for name, r in results.items()} == {
        "good-cuda": "passed", "wrong-cuda": "failed", "slow-cuda": "passed", "blas-cuda": "needs_library",
        "data-cuda": "needs_data", "broken-cuda": "build_failed", "script-cuda": "passed", "dvc-cuda": "needs_data",
        "silent-cuda": "checks_nothing", "quiet-cuda": "unverified", "shared-dvc-cuda": "needs_data",
        "mpi-cuda": "needs_library", "graph-cuda": "needs_data", "told-cuda": "needs_data", "debug-cuda": "passed",
        "sized-cuda": "passed"}
    assert results["sized-cuda"]["args"] == " (built with sizes SIZE 3200 -> 32: hecbench_args.json)"
    assert results["slow-cuda"]["args"] == "128 (Makefile's 3200 / 64)"  # 50, kept a multiple of 128
    assert results["good-cuda"]["args"] == "32 (hecbench_args.json; Makefile's 64)"
    assert results["debug-cuda"]["args"] == " (built with make DEBUG=yes: hecbench_args.json)"
    assert results["broken-cuda"]["kind"] == "undeclared missing_function"
    assert results["blas-cuda"]["detail"] == "uses cuBLAS"
    assert results["dvc-cuda"]["detail"].startswith("its build needs files kept in DVC (data.tar.gz.dvc)")
    assert results["shared-dvc-cuda"]["detail"].startswith(
        "its build needs files kept in DVC (../shared-dvc-omp/refdata.tar.gz.dvc)")
    assert results["mpi-cuda"]["detail"] == "uses MPI"
    assert "HeCBench at f27000a5188f, run " in result.stdout  # an export, not a clone: --snapshot names it
    # 14 runtime-API programs: 2 check nothing, 5 lack inputs, 5 of the other 7 pass.
    assert ("2 check nothing (1 with no verdict in their sources, 1 that ran to completion and printed none) and 5 need "
            "inputs kept outside git") in result.stdout
    assert ("**5 of 7 (71.4%) of the runtime-API programs that check their own result and have their inputs pass**; "
            "5 of 12 (41.7%) with those that need inputs counted as failures; 5 of 16 (31.2%) of all programs"
            ) in result.stdout


def test_a_run_command_continued_over_lines_is_one_command(tmp_path):
    sys.path.insert(0, os.path.dirname(HECBENCH))
    import hecbench

    (tmp_path / "Makefile").write_text("run:\n\t./main -f ./hash.txt \\\n\t   -b 60000\n")
    command, _ = hecbench.run_command(str(tmp_path), "nvcc-emu", {}, "bitcracker-cuda")
    assert command == ["./main", "-f", "./hash.txt", "-b", "60000"]


def test_programs_the_run_did_not_get_to_are_not_in_the_pass_rate():
    sys.path.insert(0, os.path.dirname(HECBENCH))
    import hecbench

    results = {"a-cuda": {"status": "passed", "libraries": []}, "b-cuda": {"status": "failed", "libraries": []},
               "c-cuda": {"status": "not_run", "libraries": []}, "d-cuda": {"status": "not_run", "libraries": []}}
    text = hecbench.summary(results, "2026-11-27", "f27000a5188f")
    assert "nor are the 2 the run's --deadline or --end left unfinished" in text
    assert "**1 of 2 (50.0%) of the runtime-API programs" in text


def test_past_the_deadline_a_program_is_still_classified_but_not_built(tmp_path):
    sys.path.insert(0, os.path.dirname(HECBENCH))
    import hecbench

    program(tmp_path, "blas-cuda", '#include <cublas_v2.h>\nint main() { puts("PASS"); }\n')
    program(tmp_path, "good-cuda", '#include <cstdio>\nint main() { puts("PASS"); }\n')
    past = 0.0  # a deadline long gone
    assert hecbench.evaluate(str(tmp_path / "blas-cuda"), "nvcc-emu", {}, 10, past)["status"] == "needs_library"
    late = hecbench.evaluate(str(tmp_path / "good-cuda"), "nvcc-emu", {}, 10, past)
    assert late["status"] == "not_run" and "build_s" not in late


def test_a_shrunk_size_keeps_the_powers_of_two_that_divided_it():
    sys.path.insert(0, os.path.dirname(HECBENCH))
    import hecbench

    assert hecbench.shrunk_size(1000000, 16) == 62464  # 976 blocks of 64 (adamw): 62500 left a partial block
    assert hecbench.shrunk_size(8192, 16) == 512
    assert hecbench.shrunk_size(3200, 64) == 128  # not below the power of two that divided it
    assert hecbench.shrunk_size(32, 16) == 32  # metropolis' lattice must stay a multiple of 32
    assert hecbench.shrunk(["./main", "1000000", "100", "0.5", "7"], 16) == ["./main", "62464", "4", "0.5", "7"]
