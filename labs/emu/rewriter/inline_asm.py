"""Inline PTX assembly (`asm("mov.u32 %0, %%laneid;" : "=r"(lane))`) cannot run on a CPU: each
such statement in a function body becomes a call that g++ rejects at that line, naming it,
instead of a build that fails in the assembler or a program that crashes. Host assembly
(x86 `asm` in host code, which nvcc passes to the host compiler) is left alone: a statement
counts as PTX when its text holds a PTX type or state space (.u32, .f64, .pred, .shared, ...)
or a PTX special register (%laneid, %clock, ...).

    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
 -> __extension__ ({ extern void cudaemu_inline_ptx(void) __attribute__((error("..."))); cudaemu_inline_ptx(); });

One exception: a lone read of a GPU clock (`mov.u64 %0, %globaltimer;`, %clock, %clock64),
which cudaGraphsPerfScaling uses to time out a wait, becomes a read of the emulator's clock,
the nanosecond count clock64() returns:

    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));  ->  (void)((t) = ::clock64());

And a lone instruction of KNOWN_INSTRUCTIONS, one result from its inputs in order, becomes the
CUDA C++ function that computes the same (stereoDisparity's sum of absolute differences):

    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
 -> (void)((r) = (::__vsadu4((a), (b)) + (c)));

And a lone tensor-core instruction of MMA_INSTRUCTIONS, its fragments in braces, becomes the
emulator's warp-wide function of include/cuda_emu/ptx_mma.h, the outputs passed by reference
(a "+f" output read as its own input where the instruction names it again):

    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};" : "+f"(d[0]), ... : "r"(a[0]), ..., "r"(b[1]));
 -> (void)(::cudaemu::ptx_mma_m16n8k8_tf32((d[0]), ..., (a[0]), ..., (b[1]), (d[0]), ..., (d[3])))
"""

import re

from scopes import matching

ASM_WORDS = {"asm", "__asm__", "__asm"}
QUALIFIERS = {"volatile", "__volatile__", "__volatile", "goto", "inline", "__inline__"}
PTX = re.compile(r"\.(?:[usbf](?:8|16|32|64)|f16x2|pred|reg|global|shared|local|const|param|sync|aligned)\b"
                 r"|%%?(?:laneid|warpid|smid|nsmid|clock|clock64|globaltimer|lanemask_\w+|tid|ctaid|ntid|nctaid)\b")
CLOCK_READ = re.compile(r'\(\s*"\s*mov\.[usb](?:32|64)\s+%0\s*,\s*%%?(?:globaltimer|clock64|clock)\s*;?\s*"'
                        r'\s*:\s*"=[rl]"\s*\((?P<out>[^;]+)\)\s*\)\Z', re.S)
# instruction -> (number of inputs, C++ expression of %1, %2, ... as {0}, {1}, ...)
KNOWN_INSTRUCTIONS = {
    "vabsdiff4.u32.u32.u32.add": (3, "::__vsadu4(({0}), ({1})) + ({2})"),
    "tanh.approx.f32": (1, "::tanhf({0})"),
    "ex2.approx.f32": (1, "::exp2f({0})"),
    "ex2.approx.ftz.f32": (1, "::exp2f({0})"),
    "lg2.approx.f32": (1, "::log2f({0})"),
    "lg2.approx.ftz.f32": (1, "::log2f({0})"),
    "rcp.approx.f32": (1, "1.0f / ({0})"),
    "rcp.approx.ftz.f32": (1, "1.0f / ({0})"),
    "rsqrt.approx.f32": (1, "::rsqrtf({0})"),
    "rsqrt.approx.ftz.f32": (1, "::rsqrtf({0})"),
}
# instruction -> (the emulator's function, the number of registers in each brace group: D, A, B, C)
MMA_INSTRUCTIONS = {
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32": ("::cudaemu::ptx_mma_m16n8k8_tf32", (4, 4, 2, 4)),
}
CONSTRAINED = re.compile(r'\s*"(?P<kind>[=+]?&?)[rlfdn]"\s*\(((?:[^()]|\([^()]*\))*)\)\s*(?:,|\Z)', re.S)
OPERANDS = re.compile(r'\s*:\s*"=[rlfd]"\s*\((?P<out>[^;]*?)\)\s*:(?P<inputs>.*)\)\Z', re.S)
INPUT = re.compile(r'\s*"[rlfdn]"\s*\(((?:[^()]|\([^()]*\))*)\)\s*(?:,|\Z)', re.S)
MESSAGE = ("inline PTX assembly (asm) cannot run on the CPU emulator: write it in CUDA C++ "
           "(__activemask(), clock64(), __shfl_sync(), atomics, ...) or build this file for a GPU")


def inline_ptx_edits(text, tokens, in_code):
    edits = []
    for index, token in enumerate(tokens):
        if token.text not in ASM_WORDS or token.in_directive or not in_code[index]:
            continue
        open_index = index + 1
        while open_index < len(tokens) and tokens[open_index].text in QUALIFIERS:
            open_index += 1
        if open_index >= len(tokens) or tokens[open_index].text != "(":
            continue
        close_index = matching(tokens, open_index, "(", ")")
        if close_index < 0:
            continue
        body = text[tokens[open_index].start:tokens[close_index].end]
        if not PTX.search(body):
            continue
        newlines = text.count("\n", token.start, tokens[close_index].end)
        clock = CLOCK_READ.match(body)
        if clock:
            edits.append((token.start, tokens[close_index].end,
                          f"(void)(({clock.group('out')}) = ::clock64())" + "\n" * newlines))
            continue
        mma = _mma_instruction(tokens, open_index, close_index, text)
        if mma:
            edits.append((token.start, tokens[close_index].end, f"(void)({mma})" + "\n" * newlines))
            continue
        known = _known_instruction(tokens, open_index, close_index, text)
        if known:
            edits.append((token.start, tokens[close_index].end, f"(void)({known})" + "\n" * newlines))
            continue
        replacement = ('__extension__ ({ extern void cudaemu_inline_ptx(void) __attribute__((error("'
                       + MESSAGE + '"))); cudaemu_inline_ptx(); })' + "\n" * newlines)
        edits.append((token.start, tokens[close_index].end, replacement))
    return edits


def _known_instruction(tokens, open_index, close_index, text):
    """`out = expression` for a lone instruction of KNOWN_INSTRUCTIONS whose operands are %0 (the
    output), then %1, %2, ... (the inputs in order); None otherwise."""
    strings, k = [], open_index + 1
    while k < close_index and tokens[k].kind == "string":
        strings.append(tokens[k].text[1:-1])
        k += 1
    match = re.fullmatch(r"\s*([a-z0-9.]+)\s+%0((?:\s*,\s*%\d)*)\s*;?\s*", "".join(strings))
    if not match or match.group(1) not in KNOWN_INSTRUCTIONS:
        return None
    count, expression = KNOWN_INSTRUCTIONS[match.group(1)]
    if re.findall(r"%(\d)", match.group(2)) != [str(n) for n in range(1, count + 1)]:
        return None
    operands = OPERANDS.match(text[tokens[k].start:tokens[close_index].end]) if k < close_index else None
    if not operands:
        return None
    inputs, rest = [], operands.group("inputs")
    while rest.strip():
        one = INPUT.match(rest)
        if not one:
            return None
        inputs.append(one.group(1).strip())
        rest = rest[one.end():]
    if len(inputs) != count:
        return None
    return f"({operands.group('out').strip()}) = ({expression.format(*inputs)})"


def _constrained_list(section):
    """[(kind, expression)] of a list of "constraint"(expression) operands; None if it is not one."""
    operands, rest = [], section
    while rest.strip():
        one = CONSTRAINED.match(rest)
        if not one:
            return None
        operands.append((one.group("kind"), one.group(2).strip()))
        rest = rest[one.end():]
    return operands


def _mma_instruction(tokens, open_index, close_index, text):
    """The call of the emulator's function for a lone instruction of MMA_INSTRUCTIONS whose
    brace groups name operands %N of the statement (outputs first, then inputs, as in GCC's
    numbering); None otherwise."""
    strings, k = [], open_index + 1
    while k < close_index and tokens[k].kind == "string":
        strings.append(tokens[k].text[1:-1])
        k += 1
    match = re.fullmatch(r"\s*([a-z0-9.]+)\s+(.*?)\s*;?\s*", "".join(strings), re.S)
    if not match or match.group(1) not in MMA_INSTRUCTIONS or k >= close_index:
        return None
    function, sizes = MMA_INSTRUCTIONS[match.group(1)]
    groups = re.findall(r"\{([^{}]*)\}", match.group(2))
    if len(groups) != len(sizes):
        return None
    numbers = [re.findall(r"%(\d+)", group) for group in groups]
    if [len(group) for group in numbers] != list(sizes):
        return None
    sections, start, depth = [], tokens[k].start, 0
    for token in tokens[k:close_index]:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(token.text, 0)
        if token.text == ":" and depth == 0:
            sections.append(text[start:token.start])
            start = token.end
    sections.append(text[start:tokens[close_index].start])
    if len(sections) < 2 or sections[0].strip():
        return None
    outputs = _constrained_list(sections[1])
    inputs = _constrained_list(sections[2]) if len(sections) > 2 else []
    if outputs is None or inputs is None or not all(kind.startswith(("=", "+")) for kind, _ in outputs):
        return None
    operands = [expression for _, expression in outputs + inputs]
    destinations = [int(n) for n in numbers[0]]
    if any(n >= len(outputs) for n in destinations) or any(int(n) >= len(operands) for g in numbers[1:] for n in g):
        return None
    arguments = [operands[n] for n in destinations] + [operands[int(n)] for g in numbers[1:] for n in g]
    return f"{function}(" + ", ".join(f"({a})" for a in arguments) + ")"
