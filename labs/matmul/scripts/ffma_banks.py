#!/usr/bin/env python3
"""Estimates the register-bank conflicts of each fast-kernel candidate's main loop, from SASS.

    cuobjdump -sass build/tune_fast > sass.txt     (cuobjdump and nvdisasm: the
                                                    nvidia-cuda-cuobjdump and -nvdisasm wheels)
    python3 labs/matmul/scripts/ffma_banks.py sass.txt [tune.txt]

For the n % 4 == 0 instance of every kernel: the loop's instructions, its FFMAs, and the cycles an
FFMA would lose reading two source registers from one bank, counting an operand as free when the
previous FFMA marked the same register in the same slot .reuse (the operand reuse cache). Banks:
register number mod 4 (the count with mod 2 is printed too; NVIDIA documents neither). With a
tune_fast output, the ratio to cuBLAS measured at the last n in it is printed beside each.
labs/matmul/NOTES.md (steps 9 to 12) says how well this tracks the measured speed.
"""
import re
import subprocess
import sys


def loop_body(function_text):
    """The instructions of the function's longest backward branch: the k loop."""
    instructions = []
    for line in function_text.split('\n'):
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
        if m:
            instructions.append((int(m.group(1), 16), m.group(2).strip()))
    loop = None
    for address, text in instructions:
        m = re.search(r'BRA.*0x([0-9a-f]+)', text)
        if m and int(m.group(1), 16) < address:
            target = int(m.group(1), 16)
            if loop is None or address - target > loop[1] - loop[0]:
                loop = (target, address)
    return [text for address, text in instructions if loop and loop[0] <= address <= loop[1]]


def bank_cycles(body, banks):
    """Extra cycles of FFMAs whose non-reused source registers share a bank."""
    reusable = [None, None, None]
    extra = 0
    for text in body:
        if not text.startswith('FFMA'):
            reusable = [None, None, None]
            continue
        sources = [s.strip() for s in text[4:].split(',')][1:4]
        read, kept = [], [None, None, None]
        for slot, operand in enumerate(sources):
            register = int(re.match(r'R(\d+)', operand).group(1))
            if reusable[slot] != register:
                read.append(register % banks)
            if '.reuse' in operand:
                kept[slot] = register
        reusable = kept
        extra += len(read) - len(set(read))
    return extra


def measured_ratios(tune_text):
    """candidate name -> ratio to cuBLAS, at the last n of a tune_fast output."""
    ratios = {}
    for line in tune_text.split('\n'):
        if line.startswith('n = '):
            ratios = {}
        m = re.match(r'\S+\s+(\w+ <.*?>)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+\S+$', line)
        if m:
            ratios[m.group(1)] = float(m.group(2))
    return ratios


def candidate_name(demangled):
    """rows_kernel<RowsShape<...>, true>(...) -> 'rows <...>' as tune_fast prints it."""
    kinds = {'fast_kernel<TileShape<': 'staged', 'async_kernel<AsyncShape<': 'async', 'rows_kernel<RowsShape<': 'rows'}
    demangled = demangled.removeprefix("void ")
    for prefix, kind in kinds.items():
        if demangled.startswith(prefix):
            return f'{kind} <{demangled[len(prefix):].split(">")[0]}>'
    return None


def main():
    text = open(sys.argv[1]).read()
    ratios = measured_ratios(open(sys.argv[2]).read()) if len(sys.argv) > 2 else {}
    print(f'{"candidate":62} {"loop":>5} {"FFMA":>5} {"bank/FFMA mod 4":>16} {"mod 2":>6} {"/cuBLAS":>8}')
    for function in re.split(r'\n\s*Function : ', text)[1:]:
        mangled = function.split('\n', 1)[0].strip()
        if not mangled.endswith('ELb1EEvPKfS3_Pfi'):  # the VEC4 = true instance
            continue
        demangled = subprocess.run(['c++filt', mangled], capture_output=True, text=True).stdout.strip()
        name = candidate_name(demangled)
        body = loop_body(function)
        ffma = sum(t.startswith('FFMA') for t in body)
        if not name or not ffma:
            continue
        ratio = ratios.get(name)
        print(f'{name:62} {len(body):5} {ffma:5} {bank_cycles(body, 4) / ffma:16.2f} {bank_cycles(body, 2) / ffma:6.2f} '
              f'{ratio if ratio is not None else "":>8}')


if __name__ == '__main__':
    main()
