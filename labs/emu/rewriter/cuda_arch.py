"""__CUDA_ARCH__ as nvcc's two passes define it: in device code, the architecture the
emulator reports; in host code, undefined.

nvcc compiles a .cu file twice: for the device with __CUDA_ARCH__ defined (900 for sm_90),
for the host without. What runs on the GPU is the device pass's code, what runs on the CPU the
host pass's. The emulator compiles once, so the rewriter decides each conditional that tests
__CUDA_ARCH__ by where it stands:

- in the body of a __global__ or __device__ function (__host__ __device__ too: under the
  emulator its device branch compiles and runs on the host as well, and a kernel that calls
  it then sees what it sees on a GPU): defined;
- in the body of a host function: undefined;
- outside any function (a conditional around declarations): defined when the conditional
  holds device code (__device__ or __global__ in any of its branches), as in
  `#if __CUDA_ARCH__ >= 700` around a __device__ function a kernel calls; else undefined,
  as in `#ifndef __CUDA_ARCH__` around a host #include.

Defined, the macro is spelled CUDAEMU_CUDA_ARCH (include/cuda_emu/device_arch.h holds its
value, which cudaGetDeviceProperties reports too); undefined, the text is left alone, since the
emulator defines no __CUDA_ARCH__. A use outside a directive in device code (printf of it)
becomes CUDAEMU_CUDA_ARCH as well. Lines keep their numbers.
"""

from accesses import device_bodies

MACRO = "__CUDA_ARCH__"
DEFINED = "CUDAEMU_CUDA_ARCH"
CONDITIONALS = ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef")


def _directives(tokens):
    """(first, last) token indexes of each directive line, its `#` first."""
    spans, i = [], 0
    while i < len(tokens):
        if tokens[i].in_directive and tokens[i].text == "#":
            j = i
            while j + 1 < len(tokens) and tokens[j + 1].in_directive and tokens[j + 1].text != "#":
                j += 1
            spans.append((i, j))
            i = j + 1
        else:
            i += 1
    return spans


def _groups(tokens, directives):
    """For each conditional directive's index in `directives`, the index of its group's
    opening #if and of its #endif (or the last directive when unbalanced)."""
    opening, closing, stack = {}, {}, []
    for index, (first, _) in enumerate(directives):
        keyword = tokens[first + 1].text if first + 1 < len(tokens) and tokens[first + 1].in_directive else ""
        if keyword in ("if", "ifdef", "ifndef"):
            stack.append([index])
        elif keyword in ("elif", "else", "elifdef", "elifndef") and stack:
            stack[-1].append(index)
        elif keyword == "endif" and stack:
            members = stack.pop()
            for member in members:
                opening[member], closing[member] = members[0], index
    return opening, closing


def _defined_spelling(tokens, first, last):
    """Edits that make the directive tokens[first..last] see __CUDA_ARCH__ defined."""
    edits = []
    keyword = tokens[first + 1]
    if keyword.text in ("ifdef", "ifndef", "elifdef", "elifndef"):
        # #ifdef __CUDA_ARCH__ -> #if 1; #ifndef -> #if 0 (same for the #elif forms).
        positive = keyword.text in ("ifdef", "elifdef")
        edits.append((keyword.start, keyword.end, "if" if keyword.text.startswith("if") else "elif"))
        for token in tokens[first + 2:last + 1]:
            if token.text == MACRO:
                edits.append((token.start, token.end, "1" if positive else "0"))
        return edits
    k = first + 2
    while k <= last:
        token = tokens[k]
        if token.text == "defined":
            # defined(__CUDA_ARCH__) or defined __CUDA_ARCH__ -> 1
            if k + 3 <= last and tokens[k + 1].text == "(" and tokens[k + 2].text == MACRO and tokens[k + 3].text == ")":
                edits.append((token.start, tokens[k + 3].end, "1"))
                k += 4
                continue
            if k + 1 <= last and tokens[k + 1].text == MACRO:
                edits.append((token.start, tokens[k + 1].end, "1"))
                k += 2
                continue
        elif token.text == MACRO:
            edits.append((token.start, token.end, DEFINED))
        k += 1
    return edits


def cuda_arch_edits(tokens, in_code):
    """Edits (begin, end, text) that define __CUDA_ARCH__ where device code sees it."""
    if not any(token.text == MACRO for token in tokens):
        return []
    bodies = device_bodies(tokens, in_code)

    def in_device_body(index):
        return any(open_ < index < close for open_, close in bodies)

    directives = _directives(tokens)
    opening, closing = _groups(tokens, directives)
    edits = []
    for index, (first, last) in enumerate(directives):
        if first + 1 > last or tokens[first + 1].text not in CONDITIONALS:
            continue
        if not any(token.text == MACRO for token in tokens[first:last + 1]):
            continue
        if in_code[first]:
            device = in_device_body(first)
        else:
            group_begin = directives[opening.get(index, index)][0]
            group_end = directives[closing.get(index, index)][1]
            device = any(not token.in_directive and token.text in ("__device__", "__global__")
                         for token in tokens[group_begin:group_end + 1])
        if device:
            edits += _defined_spelling(tokens, first, last)
    for index, token in enumerate(tokens):
        if token.text == MACRO and not token.in_directive and in_device_body(index):
            edits.append((token.start, token.end, DEFINED))
    return edits
