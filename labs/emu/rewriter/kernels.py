"""Finds __global__ functions: the names of kernels whose launches must be written as calls
(templates, whose arguments nvcc deduces from the launch's, and kernels with default
arguments: both are launched through a generic lambda, see launches.py), and, after each non-template
kernel definition, a registration that tells the runtime the kernel's name and parameter
types, so that cudaLaunchKernel((void *)k, ...) and cudaLaunchCooperativeKernel can call it:

    __global__ void k(float *a, int n = 0) { ... }
 -> __global__ void k(float *a, int n = 0) { ... } [[maybe_unused]] static const bool cudaemu_kernel_k_12 = ::cudaemu::register_kernel(static_cast<void (*)(float *a, int n)>(k), "k");
"""

from scopes import matching, split_top_level, top_level_index

SKIPPED_WITH_PARENTHESES = {"__launch_bounds__", "__attribute__", "__align__", "alignas", "__maxnreg__",
                            "__cluster_dims__", "__declspec"}


def _is_template(tokens, index):
    """True when the declaration holding tokens[index] starts with `template <...>`."""
    i = index - 1
    while i >= 0:
        text = tokens[i].text
        if text in (";", "{", "}") and not tokens[i].in_directive:
            return False
        if text == "template":
            return True
        if text == ">":
            i = matching(tokens, i, ">", "<", -1)
            if i < 0:
                return False
        i -= 1
    return False


def _signature(tokens, index):
    """(name index, open paren, close paren) of the function declared from tokens[index]."""
    i = index + 1
    while i < len(tokens):
        token = tokens[i]
        if token.text in SKIPPED_WITH_PARENTHESES and i + 1 < len(tokens) and tokens[i + 1].text == "(":
            i = matching(tokens, i + 1, "(", ")") + 1
            if i <= 0:
                return None
            continue
        if token.text == "(":
            if i > 0 and tokens[i - 1].kind == "ident":
                close = matching(tokens, i, "(", ")")
                return (i - 1, i, close) if close > 0 else None
            return None
        if token.text in (";", "{", "}", "="):
            return None
        i += 1
    return None


def _parameters_without_defaults(tokens, open_index, close_index, text):
    """The parameter list's text with default arguments removed, e.g. `float *a, int n`."""
    cleaned = []
    for parameter in split_top_level(tokens[open_index + 1:close_index]):
        cut = top_level_index(parameter, "=")
        if cut < 0:
            cut = len(parameter)
        if cut:
            cleaned.append(text[parameter[0].start:parameter[cut - 1].end])
    return ", ".join(" ".join(piece.split()) for piece in cleaned)


def _has_default_arguments(tokens, open_index, close_index):
    return top_level_index(tokens[open_index + 1:close_index], "=") >= 0


def called_kernel_names(tokens):
    """Names of kernels to launch as a call: templates, kernels with default arguments, and
    overloaded kernels (a pointer to them would not name one)."""
    names, seen = set(), {}
    for index, token in enumerate(tokens):
        if token.text != "__global__" or token.in_directive:
            continue
        signature = _signature(tokens, index)
        if not signature:
            continue
        name = tokens[signature[0]].text
        parameters = " ".join(t.text for t in tokens[signature[1]:signature[2] + 1])
        seen.setdefault(name, set()).add(parameters)
        if _is_template(tokens, index) or _has_default_arguments(tokens, *signature[1:]) or len(seen[name]) > 1:
            names.add(name)
    return names


def required_template_arguments(tokens):
    """For each template kernel, how many of its template parameters have no default (the
    fewest over its overloads); a kernel with a parameter pack is left out. A launch that
    gives fewer (`k<256><<<g, b>>>(payoff)`, the rest deduced from the arguments) must be
    launched as a call (launches.py)."""
    required = {}
    for index, token in enumerate(tokens):
        if token.text != "__global__" or token.in_directive or not _is_template(tokens, index):
            continue
        signature = _signature(tokens, index)
        i = index - 1
        while i >= 0 and tokens[i].text != "template":
            i -= 1
        if not signature or i < 0 or i + 1 >= len(tokens) or tokens[i + 1].text != "<":
            continue
        close = matching(tokens, i + 1, "<", ">")
        parameters = split_top_level(tokens[i + 2:close]) if close > 0 else []
        if any(t.text == "..." for t in tokens[i + 2:close]):
            continue
        count = sum(1 for parameter in parameters if parameter and top_level_index(parameter, "=") < 0)
        name = tokens[signature[0]].text
        required[name] = min(count, required.get(name, count))
    return required


def registration_edits(text, tokens, in_code):
    edits = []
    for index, token in enumerate(tokens):
        if token.text != "__global__" or token.in_directive or in_code[index] or _is_template(tokens, index):
            continue
        signature = _signature(tokens, index)
        if not signature:
            continue
        name_index, open_index, close_index = signature
        body = close_index + 1
        while body < len(tokens) and tokens[body].text not in ("{", ";"):
            body += 1
        if body >= len(tokens) or tokens[body].text != "{":
            continue  # a declaration only: registered where it is defined
        end = matching(tokens, body, "{", "}")
        if end < 0:
            continue
        name = tokens[name_index].text
        parameters = _parameters_without_defaults(tokens, open_index, close_index, text)
        registration = (f" [[maybe_unused]] static const bool cudaemu_kernel_{name}_{token.line} = ::cudaemu::register_kernel("
                        f"static_cast<void (*)({parameters})>({name}), \"{name}\");")
        edits.append((tokens[end].end, tokens[end].end, registration))
    return edits
