"""The emulator's build step for CUDA sources: python3 labs/emu/rewriter IN OUT [--source-name NAME]

Turns a .cu file into C++ that g++ compiles against labs/emu/include: kernel launches
become runtime calls, __shared__ declarations in kernels become per-block shared memory,
and kernels are registered by name. Lines keep their numbers, and a #line directive names
the source (NAME, by default IN), so compiler errors, gdb and AddressSanitizer point at the
student's file and line. A file that is not CUDA (.cpp, .c, ...) is copied with the #line
only, as nvcc passes such files to the host compiler untouched.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from accesses import access_edits  # noqa: E402
from kernels import called_kernel_names, registration_edits  # noqa: E402
from launches import LaunchError, launch_edits  # noqa: E402
from lexer import LexError, tokenize  # noqa: E402
from scopes import code_depths  # noqa: E402
from shared import SharedError, shared_edits  # noqa: E402

CUDA_SUFFIXES = (".cu", ".cuh")

# What nvcc gives every .cu file: __CUDACC__ and the runtime header.
PRELUDE = "#define __CUDACC__ 1\n#include <cuda_runtime.h>\n"


def apply_edits(text, edits):
    edits = sorted(edits)
    pieces, position = [], 0
    for begin, end, replacement in edits:
        if begin < position:
            raise ValueError(f"overlapping rewrites at offset {begin}")
        pieces.append(text[position:begin])
        pieces.append(replacement)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def rewrite_cuda(text):
    tokens = tokenize(text)
    in_code = code_depths(tokens)
    edits = launch_edits(text, tokens, called_kernel_names(tokens))
    # __noinline__ is no macro of the emulator's headers: libstdc++ spells the attribute
    # __attribute__((__noinline__)) in headers a .cu may include at any point (g++ 13 in more
    # of them than <memory>), and a macro would break each. The student's own uses become
    # the attribute here instead.
    edits += [(t.start, t.end, "__attribute__((noinline))") for t in tokens
              if t.kind == "ident" and t.text == "__noinline__"]
    edits += shared_edits(text, tokens, in_code)
    edits += registration_edits(text, tokens, in_code)
    # Access wrappers are insertions; one inside text another edit replaces is dropped.
    replaced = [(begin, end) for begin, end, _ in edits if end > begin]
    edits += [edit for edit in access_edits(text, tokens, in_code)
              if not any(begin < edit[0] < end for begin, end in replaced)]
    return apply_edits(text, edits)


def line_directive(name):
    return '#line 1 "' + name.replace("\\", "\\\\").replace('"', '\\"') + '"\n'


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 labs/emu/rewriter", description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="the .cu (or other) source file")
    parser.add_argument("output", help="where to write the C++ for g++")
    parser.add_argument("--source-name", help="the file name for #line (default: the input path as given)")
    parser.add_argument("--cuda", dest="cuda", action="store_true", default=None,
                        help="treat the input as CUDA whatever its suffix")
    parser.add_argument("--no-cuda", dest="cuda", action="store_false",
                        help="copy the input with a #line only, whatever its suffix")
    args = parser.parse_args(argv)
    source_name = args.source_name or args.input
    try:
        with open(args.input, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError as error:
        print(f"{args.input}: error: cannot read it: {error.strerror}", file=sys.stderr)
        return 1
    if text.startswith("\ufeff"):  # a byte-order mark would land after the prelude, mid-file
        text = text[1:]
    is_cuda = args.cuda if args.cuda is not None else args.input.endswith(CUDA_SUFFIXES)
    try:
        body = rewrite_cuda(text) if is_cuda else text
    except (LexError, LaunchError, SharedError) as error:
        print(f"{source_name}:{error.line}: error: {error} (the emulator's rewriter, EMU=1)", file=sys.stderr)
        return 1
    output = (PRELUDE if is_cuda else "") + line_directive(source_name) + body
    if not output.endswith("\n"):
        output += "\n"
    try:
        with open(args.output, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(output)
    except OSError as error:
        print(f"{args.output}: error: cannot write it: {error.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
