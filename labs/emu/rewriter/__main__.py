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
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from accesses import access_edits, statement_macros  # noqa: E402
from cuda_arch import cuda_arch_edits  # noqa: E402
from inline_asm import inline_ptx_edits  # noqa: E402
from device_calls import device_clock_edits  # noqa: E402
from headers import SearchPath, display_name, has_device_code, include_lines  # noqa: E402
from kernels import called_kernel_names, registration_edits, required_template_arguments  # noqa: E402
from launches import LaunchError, launch_edits  # noqa: E402
from lexer import LexError, tokenize  # noqa: E402
from scopes import code_depths  # noqa: E402
from shared import SharedError, shared_edits  # noqa: E402

CUDA_SUFFIXES = (".cu", ".cuh")
_LINE_DIRECTIVE = re.compile(r'^\s*#\s*line\s+(\d+)(?:\s+"((?:[^"\\\\]|\\\\.)*)")?')

# What nvcc gives every .cu file: __CUDACC__, __NVCC__ and its version (the runtime's, which
# CMake's compiler identification reads), and the runtime header.
PRELUDE = ("#define __CUDACC__ 1\n#include <cuda_runtime.h>\n#define __NVCC__ 1\n"
           "#define __CUDACC_VER_MAJOR__ (CUDART_VERSION / 1000)\n"
           "#define __CUDACC_VER_MINOR__ (CUDART_VERSION % 1000 / 10)\n#define __CUDACC_VER_BUILD__ 0\n")


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


def rewrite_cuda(text, called_elsewhere=frozenset(), macros_elsewhere=frozenset()):
    """The file's text with its CUDA rewritten; `called_elsewhere` names kernels of its
    inlined headers to launch as calls (see kernels.called_kernel_names), `macros_elsewhere`
    the statement macros of the files around it (accesses.statement_macros)."""
    tokens = tokenize(text)
    in_code = code_depths(tokens)
    edits = launch_edits(text, tokens, called_kernel_names(tokens) | set(called_elsewhere),
                         required_template_arguments(tokens))
    # __noinline__ is no macro of the emulator's headers: libstdc++ spells the attribute
    # __attribute__((__noinline__)) in headers a .cu may include at any point (g++ 13 in more
    # of them than <memory>), and a macro would break each. The student's own uses become
    # the attribute here instead.
    edits += [(t.start, t.end, "__attribute__((noinline))") for t in tokens
              if t.kind == "ident" and t.text == "__noinline__"]
    edits += inline_ptx_edits(text, tokens, in_code)
    edits += device_clock_edits(tokens, in_code)
    edits += cuda_arch_edits(tokens, in_code)
    edits += shared_edits(text, tokens, in_code)
    edits += registration_edits(text, tokens, in_code)
    # Access wrappers are insertions; one inside text another edit replaces is dropped.
    replaced = [(begin, end) for begin, end, _ in edits if end > begin]
    edits += [edit for edit in access_edits(text, tokens, in_code, macros_elsewhere)
              if not any(begin < edit[0] < end for begin, end in replaced)]
    return apply_edits(text, edits)


def read_source(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        text = handle.read()
    return text[1:] if text.startswith("\ufeff") else text  # a BOM would land mid-file


def presumed_position(text, line, name):
    """(line number, file name) a compiler gives physical line `line` of text, whose first
    line is line 1 of `name`: a #line directive before it takes over, as in the Makefile's
    student files (#line 1 "starter/<lab>/x.c")."""
    number, current = line, name
    for physical, content in enumerate(text.split("\n")[:line - 1], start=1):
        match = _LINE_DIRECTIVE.match(content)
        if match:
            number = int(match.group(1)) + (line - physical - 1)
            if match.group(2) is not None:
                current = match.group(2).encode("utf-8", "surrogateescape").decode("unicode_escape")
    return number, current


def rewrite_with_headers(text, path, search, name, stack=(), macros=frozenset()):
    """rewrite_cuda, with the local headers that hold device code rewritten in place of their
    #include (headers.py). Returns (text, kernel names to launch as calls)."""
    tokens = tokenize(text)
    here = os.path.dirname(os.path.abspath(path))
    replacements, called = {}, set()
    macros = set(macros) | statement_macros(text)
    for line, kind, included in include_lines(tokens, text):
        header = search.resolve(included, kind, here)
        if header is None:
            continue
        header_text = read_source(header) if header not in stack else ""
        header_tokens = tokenize(header_text) if header_text else []
        if header in stack or not has_device_code(header_tokens):
            if kind == '"':
                replacements[line] = '#include "' + header.replace("\\", "\\\\").replace('"', '\\"') + '"'
            continue
        try:
            body, names = rewrite_with_headers(header_text, header, search, display_name(header), stack + (header,),
                                               macros)
        except (LexError, LaunchError, SharedError) as error:
            if not hasattr(error, "source"):
                error.source = display_name(header)
            raise
        called |= names
        search.inlined.add(header)
        guard = None
        lines = body.split("\n")
        for number, content in enumerate(lines):
            if content.strip().startswith("#") and content.replace(" ", "").startswith("#pragmaonce"):
                lines[number] = ""
                guard = "CUDAEMU_INLINED_" + "".join(c if c.isalnum() else "_" for c in header)
        block = line_directive(display_name(header)) + "\n".join(lines).rstrip("\n") + "\n"
        if guard:
            block = f"#ifndef {guard}\n#define {guard}\n{block}#endif\n"
        number, current = presumed_position(text, line + 1, name)
        replacements[line] = block + line_directive_at(number, current).rstrip("\n")
    called |= called_kernel_names(tokens)
    body = rewrite_cuda(text, called, macros)
    if replacements:
        lines = body.split("\n")
        for line, replacement in replacements.items():
            lines[line - 1] = replacement
        body = "\n".join(lines)
    return body, called


def line_directive_at(number, name):
    return f"#line {number} " + line_directive(name)[len("#line 1 "):]


def line_directive(name):
    return '#line 1 "' + name.replace("\\", "\\\\").replace('"', '\\"') + '"\n'


class RewriteError(Exception):
    """What stops a rewrite, worded as a compiler's error line (FILE:LINE: error: ...)."""


def rewrite_file(input_path, output_path, source_name=None, cuda=None, search=None):
    """Rewrites input_path into output_path (see the module's docstring). With `search` (a
    headers.SearchPath), local headers with device code are rewritten in place of their
    #include. Raises RewriteError."""
    source_name = source_name or input_path
    try:
        text = read_source(input_path)
    except OSError as error:
        raise RewriteError(f"{input_path}: error: cannot read it: {error.strerror}") from None
    is_cuda = cuda if cuda is not None else input_path.endswith(CUDA_SUFFIXES)
    try:
        if not is_cuda:
            body = text
        elif search is not None:
            body, _ = rewrite_with_headers(text, input_path, search, source_name)
        else:
            body = rewrite_cuda(text)
    except (LexError, LaunchError, SharedError) as error:
        where = getattr(error, "source", source_name)
        raise RewriteError(f"{where}:{error.line}: error: {error} (the emulator's rewriter, EMU=1)") from None
    except OSError as error:
        raise RewriteError(f"{source_name}: error: cannot read a header it includes: {error.filename}: "
                           f"{error.strerror}") from None
    output = (PRELUDE if is_cuda else "") + line_directive(source_name) + body
    if not output.endswith("\n"):
        output += "\n"
    try:
        with open(output_path, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(output)
    except OSError as error:
        raise RewriteError(f"{output_path}: error: cannot write it: {error.strerror}") from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 labs/emu/rewriter", description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="the .cu (or other) source file")
    parser.add_argument("output", help="where to write the C++ for g++")
    parser.add_argument("--source-name", help="the file name for #line (default: the input path as given)")
    parser.add_argument("--cuda", dest="cuda", action="store_true", default=None,
                        help="treat the input as CUDA whatever its suffix")
    parser.add_argument("--no-cuda", dest="cuda", action="store_false",
                        help="copy the input with a #line only, whatever its suffix")
    parser.add_argument("--inline-headers", action="store_true",
                        help="rewrite the local headers with device code in place of their #include")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                        help="with --inline-headers: a folder #include searches, as g++'s -I")
    parser.add_argument("--iquote", dest="quote_dirs", action="append", default=[], metavar="DIR",
                        help="with --inline-headers: a folder #include \"...\" searches, as g++'s -iquote")
    args = parser.parse_args(argv)
    search = SearchPath(args.quote_dirs, args.include_dirs) if args.inline_headers else None
    try:
        rewrite_file(args.input, args.output, args.source_name, args.cuda, search)
    except RewriteError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
