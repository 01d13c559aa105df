"""Finds which braces open code (function bodies and everything inside them).

A __shared__ declaration in code becomes a reference into the block's shared memory; one at
namespace scope cannot (it is initialized once, not per block) and keeps the header's
fallback meaning. A `{` opens code when the enclosing scope is code, or when it follows a
parameter list `)` (possibly with const, noexcept, override, ... between). Anything this
misjudges falls back to the header's meaning of __shared__, which still works.
"""

QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "&", "&&"}


def code_depths(tokens):
    """For each token index, True when the token lies inside code (a function body)."""
    in_code = [False] * len(tokens)
    stack = []  # one bool per open brace: does it open code?
    for index, token in enumerate(tokens):
        if token.in_directive:
            in_code[index] = bool(stack) and stack[-1]
            continue
        if token.text == "{":
            opens_code = (bool(stack) and stack[-1]) or _follows_parameter_list(tokens, index)
            stack.append(opens_code)
            in_code[index] = opens_code
        elif token.text == "}":
            in_code[index] = bool(stack) and stack[-1]
            if stack:
                stack.pop()
        else:
            in_code[index] = bool(stack) and stack[-1]
    return in_code


def _follows_parameter_list(tokens, brace):
    i = brace - 1
    while i >= 0 and (tokens[i].in_directive or tokens[i].text in QUALIFIERS):
        i -= 1
    if i < 0:
        return False
    if tokens[i].text == ")":
        # `noexcept(...)` and `__attribute__((...))` end in ')' too; both still mean a body follows.
        return True
    return False


def matching(tokens, index, open_text, close_text, step=1):
    """Index of the bracket matching tokens[index], scanning forward (step 1) or back (-1)."""
    depth = 0
    i = index
    while 0 <= i < len(tokens):
        text = tokens[i].text
        if text == open_text:
            depth += 1
        elif text == close_text:
            depth -= 1
            if depth == 0:
                return i
        i += step
    return -1


def split_top_level(tokens, separator=","):
    """tokens split at each `separator` outside brackets (( [ { <), one token list a part; the
    last part is there even when empty."""
    parts, current, depth = [], [], 0
    for token in tokens:
        if token.text in "([{<":
            depth += 1
        elif token.text in ")]}>":
            depth -= 1
        if token.text == separator and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(token)
    parts.append(current)
    return parts


def top_level_index(tokens, text):
    """Index of the first `text` token outside brackets (( [ { <), or -1."""
    depth = 0
    for k, token in enumerate(tokens):
        if token.text in "([{<":
            depth += 1
        elif token.text in ")]}>":
            depth -= 1
        elif token.text == text and depth == 0:
            return k
    return -1


def first_outside_brackets(tokens, start, stops):
    """Index of the first token from tokens[start] outside brackets (( [ {, not <: a launch's
    `>>>` and a template's `>` are what callers look for) for which stops(index) is true; the
    index of a closing bracket with no opening one after start; len(tokens) when neither comes."""
    depth = 0
    i = start
    while i < len(tokens):
        text = tokens[i].text
        if text in "([{":
            depth += 1
        elif text in ")]}":
            depth -= 1
            if depth < 0:
                return i
        elif depth == 0 and stops(i):
            return i
        i += 1
    return i
