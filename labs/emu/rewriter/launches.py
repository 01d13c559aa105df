"""Rewrites kernel launches `kernel<<<config>>>(args)` into calls of the emulator's runtime.

    k<<<grid, block>>>(a, b)
 -> ::cudaemu::launch_kernel(k, "k", ::cudaemu::LaunchConfig(grid, block))(a, b)

Only `<<<` and `>>>` are replaced and text inserted before the kernel's name, all without
newlines, so every line keeps its number. A template kernel launched without its template
arguments, or with only some of them (the rest deduced from the arguments, as nvcc allows), or
a kernel with default arguments, is called through a generic lambda, so C++ deduces T and fills in defaults the same way:

    k<<<grid, block>>>(a)
 -> ::cudaemu::launch_deduced("k", ::cudaemu::LaunchConfig(grid, block), [&](auto &...cudaemu_args) { k(cudaemu_args...); })(a)
"""

from scopes import first_outside_brackets, matching, split_top_level

SEPARATORS = {"::", ".", "->"}


class LaunchError(Exception):
    def __init__(self, line, message):
        super().__init__(message)
        self.line = line


def _adjacent(tokens, i, text):
    """True when tokens[i:i+3] are three `text` characters with nothing between them, or
    spelled `<< <` and `>> >` (the C++03 way around `>>`, which nvcc accepts too)."""
    if i + 2 >= len(tokens):
        return False
    a, b, c = tokens[i], tokens[i + 1], tokens[i + 2]
    return a.text == b.text == c.text == text and b.start == a.end


def _kernel_start(tokens, first):
    """Index of the first token of the kernel expression that ends at tokens[first - 1]:
    a name, possibly qualified (ns::k, ::k, obj.member) with template arguments (k<T, 4>) or
    subscripts (table[i]), or a parenthesized expression ((*pointer))."""
    i = first - 1
    if i < 0:
        return -1
    if tokens[i].text == ")":
        return matching(tokens, i, ")", "(", -1)
    while True:
        while i >= 0 and tokens[i].text == "]":
            i = matching(tokens, i, "]", "[", -1) - 1
        if i >= 0 and tokens[i].text == ">":
            i = matching(tokens, i, ">", "<", -1) - 1
        if i < 0 or tokens[i].kind != "ident":
            return -1
        start = i
        before = i - 1
        if before >= 0 and tokens[before].text == "template":
            before -= 1
        if before < 0 or tokens[before].text not in SEPARATORS:
            return start
        i = before - 1
        if i < 0 or (tokens[i].kind != "ident" and tokens[i].text not in (">", "]")):
            return before  # a leading :: names the global namespace


def find_launches(tokens):
    """(kernel_start, open_index, close_index) per launch: open/close index the first `<` of
    `<<<` and the first `>` of `>>>`."""
    launches = []
    i = 0
    while i < len(tokens):
        if not _adjacent(tokens, i, "<"):
            i += 1
            continue
        start = _kernel_start(tokens, i)
        if start < 0 or start >= i:
            raise LaunchError(tokens[i].line, "'<<<' without a kernel name before it")
        j = first_outside_brackets(tokens, i + 3, lambda k: tokens[k].text == ";" or _adjacent(tokens, k, ">"))
        if j >= len(tokens) or not _adjacent(tokens, j, ">"):
            raise LaunchError(tokens[i].line, "kernel launch: no matching '>>>' for this '<<<'")
        if j + 3 >= len(tokens) or tokens[j + 3].text != "(":
            raise LaunchError(tokens[j].line, "kernel launch: expected '(' and the kernel's arguments after '>>>'")
        launches.append((start, i, j))
        i = j + 3
    return launches


def _partial_template_arguments(tokens, open_index, required):
    """True when the kernel before tokens[open_index] is `name<args>` with fewer arguments than
    `name`'s template needs (required: kernels.required_template_arguments)."""
    last = open_index - 1
    if tokens[last].text != ">":
        return False
    first = matching(tokens, last, ">", "<", -1)
    if first <= 0 or tokens[first - 1].kind != "ident" or tokens[first - 1].text not in required:
        return False
    given = [part for part in split_top_level(tokens[first + 1:last]) if part]
    return len(given) < required[tokens[first - 1].text]


def launch_edits(text, tokens, called_kernels, required_template_arguments=None):
    """Edits (start, end, replacement) that turn every launch into a runtime call."""
    edits = []
    for start, open_index, close_index in find_launches(tokens):
        kernel_begin = tokens[start].start
        open_begin, open_end = tokens[open_index].start, tokens[open_index + 2].end
        kernel_text = " ".join(text[kernel_begin:open_begin].split())
        name = '"' + kernel_text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        close_begin, close_end = tokens[close_index].start, tokens[close_index + 2].end
        bare_name = tokens[open_index - 1].kind == "ident"
        base_name = tokens[open_index - 1].text
        partial = _partial_template_arguments(tokens, open_index, required_template_arguments or {})
        if (bare_name and base_name in called_kernels) or partial:
            kernel_source = text[kernel_begin:open_begin]
            edits.append((kernel_begin, open_end,
                          f"::cudaemu::launch_deduced({name}, ::cudaemu::LaunchConfig("))
            edits.append((close_begin, close_end,
                          f"), [&](auto &...cudaemu_args) {{ {kernel_source}(cudaemu_args...); }})"))
        else:
            edits.append((kernel_begin, kernel_begin, "::cudaemu::launch_kernel("))
            edits.append((open_begin, open_end, f", {name}, ::cudaemu::LaunchConfig("))
            edits.append((close_begin, close_end, "))"))
    return edits
