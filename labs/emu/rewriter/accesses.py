"""Wraps memory accesses in device code so that the runtime can watch them (the race
detector; later a profiler): see labs/emu/include/cuda_emu/memory_access.h.

    __shared__ int trkc;  ...  x = trkc;  trkc = y;
 -> ...  x = ::cudaemu::shared_access(trkc, ::cudaemu::Access::Read, CUDAEMU_SITE("trkc"));
         ::cudaemu::shared_store(trkc, CUDAEMU_SITE("trkc")) = y;

    dist[i * n + j] = via;      (in a __global__ or __device__ function)
 -> ::cudaemu::global_written((dist[i * n + j] = via), CUDAEMU_SITE("dist"));

Only insertions, all on the access's own line, so lines keep their numbers. Shared: every use
of a __shared__ variable declared in the function (or of a file-scope extern __shared__
array), indexed as deeply as it was declared, whose meaning the tokens show: a read, a write
(`=`), or both (`+=`, `++`). Global: stores `name[...] = value` to any other name; the runtime
ignores the ones that land on a thread's own stack. Left alone, so never misreported: uses
whose address is taken (`&tile[i]`, atomics), member accesses (`s[i].x`: the profiler's), partial indexing
(`tile[i]` of a 2D array), sizeof/decltype, and stores through `*p` or `p->x`.

Global reads and updates, for the profiler (EMU_PROFILE, labs/emu/src/engine/profiler.h):

    sum += A[row * n + k];   ->  sum += ::cudaemu::global_read(A[row * n + k], CUDAEMU_SITE("A"));
    C[i] += v;               ->  ::cudaemu::global_updated((C[i] += v, ::cudaemu::UpdateEnd{}), CUDAEMU_SITE("C"));
    count[i]++;              ->  ::cudaemu::global_access(count[i], ::cudaemu::Access::Update, CUDAEMU_SITE("count"))++;

Any `name[...]` that is not a __shared__ variable: the runtime sorts an address into global
memory, shared memory (a pointer into a shared array) or the thread's own stack.

Members of an element, global or __shared__ (float4 arrays: pos[j].x), for the profiler only:

    dx = pos[j].x - me.x;    ->  dx = ::cudaemu::member_access(pos[j], CUDAEMU_MEMBER(.x), ::cudaemu::Access::Read, CUDAEMU_SITE("pos")).x - me.x;

the same for stores (`acc[i].x = v`: Write) and updates (`+=`, `++`), a chain (`.pos.y`) alike;
a member followed by `[`, `(` or `->` is left alone. Arrays the
function declares itself (`float acc[4][4];`, registers on a GPU) are left alone, and so are
declarations (`int a[2];`, after a type name).
"""

import re
from dataclasses import dataclass

from scopes import matching
from shared import DROPPED, _split_declarators, _strip_attributes, shared_declarations

UNEVALUATED = {"sizeof", "decltype", "alignof", "__alignof__", "typeof", "__typeof__", "noexcept"}
KEYWORDS_BEFORE_VALUE = {"return", "case", "throw", "else", "do", "co_return", "co_yield"}
COMPOUND = set("+-*/%&|^")
# Tokens after which `name[...] = v` is the start of a store (not a declaration `T a[2] = ...`).
# A `,` is left out: in `int a = 1, b[2] = {};` it separates declarators.
STORE_STARTS = {";", "{", "}", ")", "(", "?", ":", "=", "else", "do"}
# Words that are followed by `[` without being an array: never wrapped.
NOT_ARRAYS = {"delete", "new", "operator", "auto", "return", "case", "this", "template", "typename", "sizeof",
              "alignas", "__attribute__", "__declspec", "asm", "__asm__"}
# Tokens before a declaration's type: `T a[2]` and `T *a[2]` after one of these declare, not read.
DECLARATION_STARTS = {";", "{", "}", "const", "volatile", "static", "register", "unsigned", "signed", "long", "short"}


@dataclass
class SharedVariable:
    name: str
    rank: int  # how many subscripts reach one element
    visible_from: int  # token index after its declaration
    visible_to: int  # token index of the end of its scope


def _adjacent(tokens, i, text):
    return i < len(tokens) and tokens[i].text == text and tokens[i - 1].end == tokens[i].start


def device_bodies(tokens, in_code):
    """(open, close) token indexes of the bodies of __global__ and __device__ functions."""
    bodies = []
    for index, token in enumerate(tokens):
        if token.text != "{" or token.in_directive or not in_code[index]:
            continue
        if index > 0 and in_code[index - 1]:
            continue  # a brace inside code, not a function body
        i = index - 1
        device = False
        while i >= 0 and (tokens[i].in_directive or tokens[i].text not in (";", "}", "{")):
            if not tokens[i].in_directive and tokens[i].text in ("__global__", "__device__"):
                device = True
            i -= 1
        close = matching(tokens, index, "{", "}")
        if device and close > 0:
            bodies.append((index, close))
    return bodies


def _scope_end(tokens, index):
    """Index of the `}` that closes the block holding tokens[index] (or the last token)."""
    depth = 0
    for i in range(index, len(tokens)):
        if tokens[i].in_directive:
            continue
        if tokens[i].text == "{":
            depth += 1
        elif tokens[i].text == "}":
            if depth == 0:
                return i
            depth -= 1
    return len(tokens) - 1


def _shared_variables(tokens, in_code):
    variables = []
    for index, first, last in shared_declarations(tokens):
        if last < 0:
            continue
        declaration = [t for t in tokens[first:last] if t.text not in DROPPED]
        if any(t.text in ("struct", "class", "union", "enum", "{", "=") for t in declaration):
            continue
        extern = any(t.text == "extern" for t in declaration)
        if not in_code[index] and not extern:
            continue  # namespace scope: the header's thread_local, outside the shared arena
        kept, _ = _strip_attributes([t for t in declaration if t.text != "extern"])
        base, declarators = _split_declarators(kept)
        if base is None:
            continue
        scope_end = _scope_end(tokens, last + 1) if in_code[index] else len(tokens) - 1
        for declarator in declarators:
            names = [t for t in declarator if t.kind == "ident" and t.text not in ("const", "volatile")]
            if not names:
                continue
            rank = sum(1 for t in declarator if t.text == "[")
            variables.append(SharedVariable(names[0].text, rank, last + 1, scope_end))
    return variables


def _postfix_end(tokens, i):
    """(index after `name[...]...[...]`, number of subscripts), or (None, 0) if unbalanced."""
    j, subscripts = i + 1, 0
    while j < len(tokens) and tokens[j].text == "[" and not tokens[j].in_directive:
        close = matching(tokens, j, "[", "]")
        if close < 0:
            return None, 0
        j, subscripts = close + 1, subscripts + 1
    return j, subscripts


def _member_chain_end(tokens, after):
    """(index after `.a.b`, the chain's text) for the members that follow an element at
    tokens[after]; None when none follow, or when the chain goes on with `[`, `(` or `->` (a
    member array, a call, a pointer: left alone)."""
    j = after
    while j + 1 < len(tokens) and tokens[j].text == "." and not tokens[j].in_directive \
            and tokens[j + 1].kind == "ident" and tokens[j + 1].text != "template":
        j += 2
    if j == after or j < len(tokens) and tokens[j].text in ("[", "(", "->", ".", "::"):
        return None
    return j, "".join(token.text for token in tokens[after:j])


def _wrap_member_access(tokens, i, after, name, wrap):
    """Wraps `name[...]` at tokens[i:after] when members follow it (_member_chain_end); True
    when members follow, wrapped or not."""
    chain = _member_chain_end(tokens, after)
    if after >= len(tokens) or tokens[after].text != ".":
        return False
    if chain is None:
        return True
    end, members = chain
    kind = _use_kind(tokens, i, end)
    if kind is not None:
        wrap(i, after - 1, "::cudaemu::member_access(",
             f', CUDAEMU_MEMBER({members}), ::cudaemu::Access::{kind}, CUDAEMU_SITE("{name}"))')
    return True


def _address_taken(tokens, i):
    if i < 1 or tokens[i - 1].text != "&":
        return False
    before = tokens[i - 2] if i >= 2 else None
    if before is not None and before.text == "&" and before.end == tokens[i - 1].start:
        return False  # `c && a[i]`: the lexer's two `&` of a logical and
    # `a & b` is a bitwise and: a value comes before the `&`.
    return before is None or not (before.kind in ("ident", "number") and before.text not in KEYWORDS_BEFORE_VALUE
                                  or before.text in (")", "]"))


def _in_lambda_capture(tokens, i):
    """True when tokens[i] is a name in a lambda's capture list `[a, &b]`."""
    k, depth = i - 1, 0
    while k >= 0 and i - k < 64:
        text = tokens[k].text
        if text in (")", "]"):
            depth += 1
        elif text in ("(", "{", ";", "}"):
            if depth == 0:
                return False
            depth -= 1 if text == "(" else 0
        elif text == "[":
            if depth == 0:
                before = tokens[k - 1] if k > 0 else None
                # A subscript's `[` follows a value; a lambda's follows an operator or `(`.
                return before is None or not (before.kind == "ident" and before.text not in KEYWORDS_BEFORE_VALUE
                                              or before.text in (")", "]"))
            depth -= 1
        k -= 1
    return False


def _use_kind(tokens, i, after):
    """'Read', 'Write' or 'Update' for the use tokens[i:after]; None when it is not a plain use."""
    if i >= 1 and tokens[i - 1].text in (".", "->", "::", "~"):
        return None
    if i >= 1 and (tokens[i - 1].text in UNEVALUATED or tokens[i - 1].text == "(" and i >= 2
                   and tokens[i - 2].text in UNEVALUATED):
        return None
    if _address_taken(tokens, i) or _in_lambda_capture(tokens, i):
        return None
    nxt = tokens[after].text if after < len(tokens) else ";"
    if nxt in (".", "->", "("):
        return None
    if i >= 2 and tokens[i - 1].text in ("+", "-") and tokens[i - 2].text == tokens[i - 1].text \
            and tokens[i - 2].end == tokens[i - 1].start:
        return "Update"  # ++x, --x
    if nxt in ("+", "-") and _adjacent(tokens, after + 1, nxt):
        return "Update"  # x++, x--
    if nxt == "=":
        return "Read" if _adjacent(tokens, after + 1, "=") else "Write"
    if nxt in COMPOUND and _adjacent(tokens, after + 1, "=") and not _adjacent(tokens, after + 2, "="):
        return "Update"
    if nxt in ("<", ">") and _adjacent(tokens, after + 1, nxt) and _adjacent(tokens, after + 2, "="):
        return "Update"  # <<=, >>=
    return "Read"


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)]*\))?(.*)$", re.M)


def statement_macros(text):
    """Names of the file's macros whose text holds a `;` (`#define INV_SQRT_2 0.7071f;`): a
    store that uses one is left unwrapped, since `(x = y * INV_SQRT_2)` would not compile."""
    return {match.group(1) for match in _DEFINE.finditer(text) if ";" in match.group(3)}


def _assignment_end(tokens, op, unsafe_macros=frozenset()):
    """Index of the last token of the value assigned at tokens[op]; None when unclear."""
    depth, j, angle_seen, conditionals = 0, op + 1, False, 0
    while j < len(tokens):
        text = tokens[j].text
        if tokens[j].in_directive or text in unsafe_macros:
            return None
        if depth == 0 and text == "?":
            conditionals += 1
        elif depth == 0 and text == ":":
            if conditionals == 0:
                return j - 1  # c ? p[i] = 1 : ...
            conditionals -= 1
        elif text in "([{":
            depth += 1
        elif text in ")]}":
            if depth == 0:
                return j - 1
            depth -= 1
        elif depth == 0 and text == ";":
            return j - 1
        elif depth == 0 and text == ",":
            # f<int, 2>(x) would be cut at its comma: leave any such store alone.
            return None if angle_seen else j - 1
        elif depth == 0 and text == "<":
            angle_seen = True
        j += 1
    return None


def _declares(tokens, i, after):
    """True when `name[...]` at tokens[i] is (very likely) a declaration, not a use: after a type
    name (`float acc[4]`), after `T *` or `T &` at a statement's start, or `Foo<T> a[2];`."""
    if i < 1:
        return False
    before = tokens[i - 1]
    if before.kind == "ident" and before.text not in KEYWORDS_BEFORE_VALUE:
        return True
    if before.text == ",":
        return _in_declaration_list(tokens, i)
    if before.text in ("*", "&") and i >= 3 and tokens[i - 2].kind == "ident" \
            and tokens[i - 2].text not in KEYWORDS_BEFORE_VALUE \
            and (tokens[i - 3].text in DECLARATION_STARTS or tokens[i - 3].kind == "ident"
                 and tokens[i - 3].text not in KEYWORDS_BEFORE_VALUE):
        return True
    if before.text == ">" and after < len(tokens) and tokens[after].text in (";", ",", "{", "=") \
            and not _adjacent(tokens, after + 1, "="):
        return True
    return False


def _in_declaration_list(tokens, i):
    """True when the `,` before tokens[i] separates declarators: `float a[2], b[3];`."""
    k, depth = i - 1, 0
    while k >= 0:
        text = tokens[k].text
        if text in (")", "]", "}") and not (text == "}" and depth == 0):
            depth += 1
        elif text in ("(", "[", "{") and depth > 0:
            depth -= 1
        elif depth == 0 and text in ("(", "[", "{", ";", "}"):
            if text not in ("{", ";", "}"):
                return False  # an argument list or a subscript: f(a, b[i])
            break
        k -= 1
    start = k + 1
    if start + 1 >= i:
        return False
    first, second = tokens[start], tokens[start + 1]
    return first.kind == "ident" and first.text not in KEYWORDS_BEFORE_VALUE and first.text not in NOT_ARRAYS \
        and (second.kind == "ident" or second.text in ("*", "&", "<", "::"))


def _local_arrays(tokens, open_, close, shared_names):
    """Names of the arrays a function body declares itself (`float acc[4][4];`): registers or
    the thread's stack, never global memory, so their uses are not wrapped."""
    names = set()
    for i in range(open_ + 1, close):
        token = tokens[i]
        if token.kind != "ident" or token.in_directive or token.text in shared_names or token.text in NOT_ARRAYS:
            continue
        if i + 1 < close and tokens[i + 1].text == "[" and _declares(tokens, i, i + 1):
            names.add(token.text)
    return names


def _store_wrapper(kind, site):
    """(prefix, suffix) around a store `x[i] = v` or an update `x[i] += v`. An update passes
    ::cudaemu::UpdateEnd through the comma operator: a compound assignment that returns void
    (helper_math.h's `void operator+=(float3 &, float3)`) then still compiles, unobserved."""
    if kind == "Write":
        return "::cudaemu::global_written((", f"), {site})"
    return "::cudaemu::global_updated((", f", ::cudaemu::UpdateEnd{{}}), {site})"


def _allocated_type(tokens, i):
    """True when tokens[i] names the type of a new-expression, `new T[n]`, `new (buffer) T[n]`,
    `::new (p) ns::T[n]`, `new unsigned int[n]`: an array type, not an element read."""
    k = i - 1
    while k >= 0 and (tokens[k].kind == "ident" or tokens[k].text == "::"):
        if tokens[k].text == "new":
            return True
        if tokens[k].text in KEYWORDS_BEFORE_VALUE or tokens[k].text in NOT_ARRAYS:
            return False
        k -= 1
    if k < 0 or tokens[k].text != ")":
        return False
    open_ = matching(tokens, k, ")", "(", step=-1)  # the placement arguments
    return open_ > 0 and tokens[open_ - 1].text == "new"


CASTS = {"reinterpret_cast", "static_cast", "const_cast"}
POINTER_TYPE_TOKENS = {"*", "::", "<", ">", ",", "const", "volatile"}


def _value_before(tokens, i):
    """True when tokens[i - 1] ends a value, so that a `*` or `(` at i is binary or a call."""
    if i < 1:
        return False
    before = tokens[i - 1]
    if before.text == ")":  # `(a) * b` is a product; `if (c) *p = 0;` a store
        k, depth = i - 1, 0
        while k >= 0:
            depth += tokens[k].text == ")"
            depth -= tokens[k].text == "("
            if depth == 0:
                break
            k -= 1
        return not (k >= 1 and tokens[k - 1].text in ("if", "while", "for", "switch"))
    return before.kind in ("ident", "number") and before.text not in KEYWORDS_BEFORE_VALUE \
        or before.text == "]"


def _pointer_cast(tokens, open_):
    """Index of the `)` of `(T *)` at tokens[open_], or None when it is not a cast to a pointer."""
    close = matching(tokens, open_, "(", ")")
    if close < 0 or close - open_ < 3 or tokens[close - 1].text != "*":
        return None
    if all(t.kind == "ident" or t.text in POINTER_TYPE_TOKENS for t in tokens[open_ + 1:close]):
        return close
    return None


def _named_cast_end(tokens, i):
    """Index of the `)` of `reinterpret_cast<T *>(...)` at tokens[i], or None."""
    if tokens[i].text not in CASTS or i + 1 >= len(tokens) or tokens[i + 1].text != "<":
        return None
    j = matching(tokens, i + 1, "<", ">")
    if j < 0 or j + 1 >= len(tokens) or tokens[j + 1].text != "(" or tokens[j - 1].text != "*":
        return None
    close = matching(tokens, j + 1, "(", ")")
    return close if close > 0 else None


def _operand_end(tokens, i):
    """Last token of the operand of a cast starting at tokens[i]: `&a[i]`, `p`, `p[i]` or `(...)`."""
    if i >= len(tokens):
        return None
    if tokens[i].text == "(":
        close = matching(tokens, i, "(", ")")
        return close if close > 0 else None
    if tokens[i].text == "&":
        i += 1
    if i < len(tokens) and tokens[i].kind == "ident":
        after, _ = _postfix_end(tokens, i)
        return None if after is None else after - 1
    return None


def _cast_access(tokens, i):
    """(first, last) tokens of an access through a pointer cast at tokens[i], or None:
    `*(int4 *)&src[k]`, `*reinterpret_cast<const float4 *>(p)`, `((float4 *)data)[q]`."""
    if tokens[i].text == "*" and not _value_before(tokens, i) and i + 1 < len(tokens):
        if tokens[i - 1].text == "," and _in_declaration_list(tokens, i):
            return None  # `uint *start, *end;`: a declarator, not a read through `end`
        if tokens[i + 1].kind == "ident" and tokens[i + 1].text not in CASTS | NOT_ARRAYS | KEYWORDS_BEFORE_VALUE:
            after = tokens[i + 2].text if i + 2 < len(tokens) else ";"
            # `*done = 0`, `*count += 1`, `x = *p`: a pointer named alone (not `*p[i]`, `*f(x)`)
            if after not in ("[", "(", ".", "->", "::", "<") and not (
                    after == ")" and tokens[i - 1].text == "(" and i + 3 < len(tokens) and tokens[i + 3].text in "[("):
                return i, i + 1  # not `int (*rows)[64]` or `(*f)(x)`: declarators, or left alone
            return None
        if tokens[i + 1].text == "(":
            close = _pointer_cast(tokens, i + 1)
            end = close is not None and _operand_end(tokens, close + 1)
            return (i, end) if end else None
        end = _named_cast_end(tokens, i + 1)
        return (i, end) if end else None
    if tokens[i].text == "(" and not _value_before(tokens, i) and i + 1 < len(tokens):
        close = matching(tokens, i, "(", ")")
        inner = tokens[i + 1].text == "(" and _pointer_cast(tokens, i + 1)
        named = _named_cast_end(tokens, i + 1)
        if close < 0 or not (inner or named) or close + 1 >= len(tokens) or tokens[close + 1].text != "[":
            return None
        end = (_operand_end(tokens, inner + 1) if inner else named)
        if end != close - 1:
            return None
        after, _ = _postfix_end(tokens, close)
        return (i, after - 1) if after else None
    if tokens[i].kind == "ident" and tokens[i].text in CASTS and not (i >= 1 and tokens[i - 1].text == "*"):
        close = _named_cast_end(tokens, i)
        if close is None or close + 1 >= len(tokens) or tokens[close + 1].text != "[":
            return None
        after, _ = _postfix_end(tokens, close)
        return (i, after - 1) if after else None
    return None


def _cast_operand_name(tokens, first, last):
    """(index, name) of the pointer a cast access goes through: `src` in `*(int4 *)&src[k]`."""
    if last == first + 1:  # `*p`
        return None, tokens[last].text
    k = first + 1 if tokens[first].text in ("*", "(") else first
    if tokens[k].text == "(":
        j = matching(tokens, k, "(", ")") + 1
    else:
        j = k + 1
        while j <= last and tokens[j].text != "(":
            j += 1
        j += 1
    if j < len(tokens) and tokens[j].text == "&":
        j += 1
    if j <= last and tokens[j].kind == "ident":
        return j, tokens[j].text
    return None, "*"


def _wrap_cast_access(tokens, i, cast, wrap, skip):
    first, last = cast
    index, name = _cast_operand_name(tokens, first, last)
    if index is not None and tokens[index - 1].text == "&":
        skip.add(index)  # `&src[k]` is the address the cast reads through, not a read of src[k]
    if first >= 1 and tokens[first - 1].text == "&" and not _value_before(tokens, first - 1):
        return  # its address taken again: no access
    after = last + 1
    nxt = tokens[after].text if after < len(tokens) else ";"
    if nxt in (".", "->", "("):
        return
    site = f'CUDAEMU_SITE("{name}")'
    if first >= 2 and tokens[first - 1].text in ("+", "-") and tokens[first - 2].text == tokens[first - 1].text:
        wrap(first, last, "::cudaemu::global_access(", f", ::cudaemu::Access::Update, {site})")  # ++*p
        return
    if nxt in ("+", "-") and _adjacent(tokens, after + 1, nxt):
        return  # *p++ moves the pointer: a read of *p, left alone
    write = nxt == "=" and not _adjacent(tokens, after + 1, "=")
    update = nxt in COMPOUND and _adjacent(tokens, after + 1, "=") and not _adjacent(tokens, after + 2, "=") \
        or nxt in ("<", ">") and _adjacent(tokens, after + 1, nxt) and _adjacent(tokens, after + 2, "=")
    if write or update:
        op = after
        while op < after + 3 and op < len(tokens) and tokens[op].text != "=":
            op += 1
        if first >= 1 and tokens[first - 1].text in STORE_STARTS:
            end = _assignment_end(tokens, op)
            if end is not None and end > op:
                wrap(first, end, *_store_wrapper("Write" if write else "Update", site))
        return
    wrap(first, last, "::cudaemu::global_read(", f", {site})")


def access_edits(text, tokens, in_code, unsafe_macros=frozenset()):
    """Insertions (offset, offset, text) that wrap the watched accesses of device code;
    `unsafe_macros`: statement_macros() of the files included with this one."""
    unsafe_macros = set(unsafe_macros) | statement_macros(text)
    shared = _shared_variables(tokens, in_code)
    # (offset, order, text): at one offset, the outer expression opens first and the inner
    # one closes first, so the wrappers nest.
    insertions = []

    def wrap(begin_token, end_token, prefix, suffix):
        begin, end = tokens[begin_token].start, tokens[end_token].end
        insertions.append((begin, -end, prefix))
        insertions.append((end, -begin, suffix))

    shared_names = {variable.name for variable in shared}
    for open_, close in device_bodies(tokens, in_code):
        local_arrays = _local_arrays(tokens, open_, close, shared_names)
        skip = set()
        for i in range(open_ + 1, close):
            token = tokens[i]
            if token.in_directive:
                continue
            cast = _cast_access(tokens, i)
            if cast is not None:
                _wrap_cast_access(tokens, i, cast, wrap, skip)
                continue
            if token.kind != "ident" or token.text in NOT_ARRAYS or i in skip:
                continue
            variable = None
            for candidate in shared:
                if candidate.name == token.text and candidate.visible_from <= i <= candidate.visible_to:
                    variable = candidate  # the innermost (latest) declaration wins
            after, subscripts = _postfix_end(tokens, i)
            if after is None:
                continue
            name = token.text.replace('"', "")
            if variable is not None:
                if subscripts != variable.rank or _wrap_member_access(tokens, i, after, name, wrap):
                    continue
                kind = _use_kind(tokens, i, after)
                if kind is None:
                    continue
                if kind == "Write":  # seen once stored, to tell a store of the same value
                    wrap(i, after - 1, "::cudaemu::shared_store(", f', CUDAEMU_SITE("{name}"))')
                else:
                    wrap(i, after - 1, "::cudaemu::shared_access(",
                         f', ::cudaemu::Access::{kind}, CUDAEMU_SITE("{name}"))')
                continue
            if subscripts == 0 or i < 1 or token.text in local_arrays or _declares(tokens, i, after) \
                    or _allocated_type(tokens, i):
                continue
            if _wrap_member_access(tokens, i, after, name, wrap):
                continue
            kind = _use_kind(tokens, i, after)
            if kind is None:
                continue
            site = f'CUDAEMU_SITE("{name}")'
            if kind == "Read":
                wrap(i, after - 1, "::cudaemu::global_read(", f", {site})")
                continue
            op = after  # the `=` of `=`, `+=`, `<<=`; x[i]++ has none
            while op < after + 3 and op < len(tokens) and tokens[op].text != "=":
                op += 1
            if op >= len(tokens) or tokens[op].text != "=":
                if kind == "Update":  # x[i]++, --x[i]: seen by the profiler, not the race detector
                    wrap(i, after - 1, "::cudaemu::global_access(", f", ::cudaemu::Access::Update, {site})")
                continue
            if tokens[i - 1].text not in STORE_STARTS:
                continue
            last = _assignment_end(tokens, op, unsafe_macros)
            if last is None or last <= op:
                continue
            wrap(i, last, *_store_wrapper(kind, site))
    insertions.sort(key=lambda insertion: (insertion[0], insertion[1]))
    edits, merged = [], {}
    for offset, _, piece in insertions:
        merged.setdefault(offset, []).append(piece)
    for offset, pieces in merged.items():
        edits.append((offset, offset, "".join(pieces)))
    return edits
