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
"""

import re

from scopes import matching

ASM_WORDS = {"asm", "__asm__", "__asm"}
QUALIFIERS = {"volatile", "__volatile__", "__volatile", "goto", "inline", "__inline__"}
PTX = re.compile(r"\.(?:[usbf](?:8|16|32|64)|f16x2|pred|reg|global|shared|local|const|param|sync|aligned)\b"
                 r"|%%?(?:laneid|warpid|smid|nsmid|clock|clock64|globaltimer|lanemask_\w+|tid|ctaid|ntid|nctaid)\b")
CLOCK_READ = re.compile(r'\(\s*"\s*mov\.[usb](?:32|64)\s+%0\s*,\s*%%?(?:globaltimer|clock64|clock)\s*;?\s*"'
                        r'\s*:\s*"=[rl]"\s*\((?P<out>[^;]+)\)\s*\)\Z', re.S)
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
        replacement = ('__extension__ ({ extern void cudaemu_inline_ptx(void) __attribute__((error("'
                       + MESSAGE + '"))); cudaemu_inline_ptx(); })' + "\n" * newlines)
        edits.append((token.start, tokens[close_index].end, replacement))
    return edits
