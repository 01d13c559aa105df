"""Local headers with device code: rewritten too, in place of their #include.

nvcc compiles a .cu file's headers as CUDA; the rewriter sees one file. A header of the
program's own (found from the including file's folder or an -I folder, not a system or
emulator header) that holds a kernel, a launch, __shared__ or __device__ code is therefore
rewritten as the .cu file is and put where its #include was, between #line directives, so
messages, gdb and AddressSanitizer still name the header and its line:

    #include "scan.cuh"        (line 7 of main.cu)
 -> #line 1 "scan.cuh"
    ...scan.cuh, rewritten...
    #line 8 "main.cu"

A `#pragma once` header becomes a guarded one. A header already being inlined further up
(a cycle, stopped by its guard) and a local header without device code keep their #include,
written with the header's absolute path, since the rewritten file is compiled elsewhere.
"""

import os
import re

from launches import find_launches

DEVICE_WORDS = {"__global__", "__device__", "__shared__", "__constant__", "__noinline__"}
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
_PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\b")


class SearchPath:
    """Where #include looks, as g++ does: quoted names in the including file's folder first,
    then -iquote folders, then -I folders; <names> in -I folders only (system folders are
    never inlined)."""

    def __init__(self, quote_dirs=(), include_dirs=()):
        self.quote_dirs = list(quote_dirs)
        self.include_dirs = list(include_dirs)
        self.inlined = set()  # the headers rewritten into the file, for dependency lists

    def resolve(self, name, kind, including_dir):
        dirs = ([including_dir] + self.quote_dirs if kind == '"' else []) + self.include_dirs
        for folder in dirs:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return os.path.normpath(os.path.abspath(candidate))
        return None


def has_device_code(tokens):
    if any(t.kind == "ident" and t.text in DEVICE_WORDS for t in tokens):
        return True
    try:
        return bool(find_launches(tokens))
    except Exception:  # a malformed launch: the rewrite reports it with its line
        return True


def include_lines(tokens, text):
    """(line number, kind, name) of each #include directive among the tokens."""
    lines = text.split("\n")
    found = []
    for index, token in enumerate(tokens):
        if token.text != "#" or not token.in_directive:
            continue
        if index + 1 >= len(tokens) or tokens[index + 1].text != "include":
            continue
        match = _INCLUDE.match(lines[token.line - 1])
        if match:
            found.append((token.line, match.group(1), match.group(2)))
    return found


def display_name(path):
    """A header's name in #line: relative to the working folder when it lies under it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative
