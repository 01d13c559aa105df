"""Rewrites __shared__ declarations in function bodies into references into the running
block's shared memory, so that each block has its own copy:

    __shared__ float tile[16][17], total;
 -> auto &tile = ::cudaemu::static_shared<float [16][17]>([] {}); auto &total = ::cudaemu::static_shared<float>([] {});

    extern __shared__ float buffer[];
 -> float *const buffer = reinterpret_cast<float *>(::cudaemu::dynamic_shared_memory());
    extern __shared__ half rows[][40];
 -> half (*const rows)[40] = reinterpret_cast<half (*)[40]>(::cudaemu::dynamic_shared_memory());

A declaration the rewriter cannot read is left alone; the header then makes it a
thread_local, which is still one copy per running block (see cuda_emu/qualifiers.h).
"""

from scopes import first_outside_brackets, matching, split_top_level

DROPPED = {"__shared__", "static", "__device__"}
ATTRIBUTES = {"__align__", "alignas", "__attribute__", "__builtin_align__"}
PTR_OPERATORS = {"*", "&", "const", "volatile", "__restrict__", "__restrict"}


class SharedError(Exception):
    def __init__(self, line, message):
        super().__init__(message)
        self.line = line


def _statement_bounds(tokens, index):
    """Token indexes [first, last] of the declaration holding tokens[index] (last is its ';')."""
    first = index
    while first > 0:
        previous = tokens[first - 1]
        if not previous.in_directive and previous.text in (";", "{", "}", ":"):
            break
        first -= 1
    while first < index and tokens[first].in_directive:
        first += 1
    last = first_outside_brackets(tokens, index, lambda k: tokens[k].text == ";")
    return first, last if last < len(tokens) and tokens[last].text == ";" else -1


def shared_declarations(tokens):
    """(index, first, last) for each __shared__ outside a directive: its token index and its
    declaration's bounds (_statement_bounds: last is -1 where no ';' ends it)."""
    for index, token in enumerate(tokens):
        if token.text == "__shared__" and not token.in_directive:
            yield (index, *_statement_bounds(tokens, index))


def _strip_attributes(tokens):
    """The tokens without alignment attributes, and the largest alignment they asked for."""
    kept, align, i = [], 0, 0
    while i < len(tokens):
        token = tokens[i]
        if token.text in ATTRIBUTES and i + 1 < len(tokens) and tokens[i + 1].text == "(":
            j = matching(tokens, i + 1, "(", ")")
            if j < 0:  # unclosed: the rest is the attribute's
                j = len(tokens)
            numbers = [t.text for t in tokens[i + 1:j] if t.kind == "number"]
            if numbers and numbers[0].isdigit():
                align = max(align, int(numbers[0]))
            i = j + 1
            continue
        kept.append(token)
        i += 1
    return kept, align


def _split_declarators(tokens):
    """Splits `T a[N], *b` into the base type tokens and one token list per declarator."""
    angle = 0
    name_index = -1
    for i, token in enumerate(tokens):
        if token.text == "<":
            angle += 1
        elif token.text == ">":
            angle -= 1
        elif angle == 0 and token.kind == "ident" and i > 0:
            following = tokens[i + 1].text if i + 1 < len(tokens) else ";"
            if following in ("[", ",", "=", ";"):
                name_index = i
                break
    if name_index < 0:
        return None, None
    begin = name_index
    while begin > 0 and tokens[begin - 1].text in PTR_OPERATORS and tokens[begin - 1].text not in ("const", "volatile"):
        begin -= 1
    base, rest = tokens[:begin], tokens[begin:]
    if not base:
        return None, None
    return base, split_top_level(rest)


def _join(tokens):
    return " ".join(t.text for t in tokens)


def _static_replacement(tokens, line):
    kept, align = _strip_attributes([t for t in tokens if t.text not in DROPPED])
    base, declarators = _split_declarators(kept)
    if base is None:
        return None
    parts = []
    for declarator in declarators:
        names = [i for i, t in enumerate(declarator) if t.kind == "ident" and t.text not in PTR_OPERATORS]
        if not names or any(t.text == "=" for t in declarator) or any(t.text == "{" for t in declarator):
            if any(t.text in ("=", "{") for t in declarator):
                return ('static_assert(sizeof(int) == 0, "a __shared__ variable cannot have an initializer '
                        '(nvcc: initializer not allowed for __shared__ variable); assign it in the kernel, '
                        'then __syncthreads()");')
            return None
        name_at = names[0]
        name = declarator[name_at].text
        pointer_part = _join(declarator[:name_at])
        array_part = _join(declarator[name_at + 1:])
        type_id = " ".join(part for part in (_join(base), pointer_part, array_part) if part)
        template_arguments = type_id + (f", {align}" if align else "")
        parts.append(f"auto &{name} = ::cudaemu::static_shared<{template_arguments}>([] {{}});")
    return " ".join(parts)


def _dynamic_replacement(tokens, in_code):
    kept, _ = _strip_attributes([t for t in tokens if t.text not in DROPPED and t.text != "extern"])
    # extern __shared__ T name[];  ->  the type is everything before the name. With more
    # extents, extern __shared__ T name[][N];  ->  a pointer to rows of N (cuda-samples' GEMMs).
    at = next((i for i in range(1, len(kept) - 2)
               if kept[i].kind == "ident" and kept[i + 1].text == "[" and kept[i + 2].text == "]"), None)
    if at is None or (at + 3 < len(kept) and kept[at + 3].text != "["):
        return None
    name, element, rows = kept[at].text, _join(kept[:at]), _join(kept[at + 3:])
    storage = "" if in_code else "static thread_local "
    if not rows:
        return (f"{storage}{element} *const {name} = "
                f"reinterpret_cast<{element} *>(::cudaemu::dynamic_shared_memory());")
    return (f"{storage}{element} (*const {name}){rows} = "
            f"reinterpret_cast<{element} (*){rows}>(::cudaemu::dynamic_shared_memory());")


def shared_edits(text, tokens, in_code):
    edits = []
    for index, first, last in shared_declarations(tokens):
        token = tokens[index]
        if last < 0:
            raise SharedError(token.line, "__shared__ declaration without a ';'")
        declaration = tokens[first:last]
        if any(t.text in ("struct", "class", "union", "enum") for t in declaration) and any(
                t.text == "{" for t in declaration):
            continue  # a type defined in the declaration: left to the header's meaning
        if any(t.text == "extern" for t in declaration):
            replacement = _dynamic_replacement(declaration, in_code[index])
        elif in_code[index]:
            replacement = _static_replacement(declaration, token.line)
        else:
            continue  # namespace scope: the header's thread_local meaning
        if replacement is None:
            continue
        begin, end = tokens[first].start, tokens[last].end
        edits.append((begin, end, replacement + "\n" * text.count("\n", begin, end)))
    return edits
