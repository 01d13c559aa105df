"""Splits C++ source into tokens, keeping each token's offsets into the text.

Comments and whitespace are dropped; string and character literals (raw strings too) are
single tokens, so nothing inside them is ever mistaken for code. Tokens on preprocessor
directive lines are marked, so rewrites that only make sense in code can skip them.
"""

from dataclasses import dataclass

PUNCT_PAIRS = ("::", "->")


@dataclass
class Token:
    kind: str  # "ident", "number", "string", "char", "punct"
    text: str
    start: int
    end: int
    line: int
    in_directive: bool


class LexError(Exception):
    def __init__(self, line, message):
        super().__init__(message)
        self.line = line


def _is_ident_start(c):
    return c.isalpha() or c == "_" or c == "$"


def _is_ident_char(c):
    return c.isalnum() or c == "_" or c == "$"


def tokenize(text):
    tokens = []
    i, n, line = 0, len(text), 1
    at_line_start = True  # only whitespace since the last newline
    in_directive = False
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            in_directive = False
            continue
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":  # line continuation
            line += 1
            i += 2
            continue
        if c == "\\" and text.startswith("\\\r\n", i):
            line += 1
            i += 3
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                i += 1
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            if close < 0:
                raise LexError(line, "unterminated /* comment")
            line += text.count("\n", i, close)
            i = close + 2
            continue
        if c == "#" and at_line_start:
            in_directive = True
        at_line_start = False
        start, start_line = i, line
        if _is_ident_start(c):
            while i < n and _is_ident_char(text[i]):
                i += 1
            word = text[start:i]
            # String and character literals with an encoding prefix (u8"", L'', R"(...)").
            if i < n and text[i] in "\"'" and word in ("u8", "u", "U", "L", "R", "u8R", "uR", "UR", "LR"):
                if word.endswith("R") and text[i] == '"':
                    i, line = _raw_string(text, i, line)
                else:
                    i, line = _quoted(text, i, line, text[i])
                tokens.append(Token("string" if text[start + len(word)] == '"' else "char", text[start:i],
                                    start, i, start_line, in_directive))
                continue
            tokens.append(Token("ident", word, start, i, start_line, in_directive))
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            i += 1
            while i < n:
                d = text[i]
                if d in "eEpP" and i + 1 < n and text[i + 1] in "+-":
                    i += 2
                elif _is_ident_char(d) or d == ".":
                    i += 1
                elif d == "'" and i + 1 < n and _is_ident_char(text[i + 1]):  # digit separator
                    i += 2
                else:
                    break
            tokens.append(Token("number", text[start:i], start, i, start_line, in_directive))
            continue
        if c in "\"'":
            i, line = _quoted(text, i, line, c)
            tokens.append(Token("string" if c == '"' else "char", text[start:i], start, i, start_line, in_directive))
            continue
        pair = text[i:i + 2]
        if pair in PUNCT_PAIRS:
            tokens.append(Token("punct", pair, i, i + 2, start_line, in_directive))
            i += 2
            continue
        tokens.append(Token("punct", c, i, i + 1, start_line, in_directive))
        i += 1
    return tokens


def _quoted(text, i, line, quote):
    """Skips a "..." or '...' literal starting at text[i]; returns the index after it."""
    n = len(text)
    i += 1
    while i < n and text[i] != quote:
        if text[i] == "\\":
            i += 1
        if i < n and text[i] == "\n":
            raise LexError(line, f"unterminated {quote} literal")
        i += 1
    if i >= n:
        raise LexError(line, f"unterminated {quote} literal")
    return i + 1, line


def _raw_string(text, i, line):
    """Skips R"delim( ... )delim" starting at the opening quote text[i]."""
    open_paren = text.find("(", i)
    delimiter = text[i + 1:open_paren]
    close = text.find(")" + delimiter + '"', open_paren)
    if open_paren < 0 or close < 0:
        raise LexError(line, "unterminated raw string literal")
    end = close + len(delimiter) + 2
    return end, line + text.count("\n", i, end)
