"""Renders the handouts to HTML: `make handouts`, or python3 -m authoring.handouts [--out DIR].

Every handouts/*.md (and handouts/answers/*.md, the instructor's answers, where this copy of the
kit has them) becomes <out>/<name>.html with pandoc, reading GitHub-flavoured Markdown, so a
handout reads the same on a forge and in a browser. The figures (`make figures`) go beside them
in <out>/figures/. Links are rewritten so that they still work from <out>: to another handout,
X.md becomes X.html; to a file of the kit (../labs/...), one more ../ (out is one folder deeper).

The same reading of the Markdown gives the shell commands a handout shows (code_lines), which
tests/handouts/ checks.
"""

from __future__ import annotations

import argparse
import html
import json
import posixpath
import shutil
import subprocess
import sys
from pathlib import Path

from grader.paths import BUILD_DIR, KIT_ROOT

HANDOUTS_DIR = KIT_ROOT / "handouts"
ANSWERS_DIR = HANDOUTS_DIR / "answers"
STYLE = HANDOUTS_DIR / "style" / "handout.css"
DEFAULT_OUT = BUILD_DIR / "handouts"
MARKDOWN = "gfm+tex_math_dollars+implicit_figures"


class HandoutError(Exception):
    """pandoc is missing or refused a handout; the message says which and why."""


def handout_sources() -> list[Path]:
    """Every handout, the course's pages first, then the instructor's answers if present."""
    return sorted(HANDOUTS_DIR.glob("*.md")) + sorted(ANSWERS_DIR.glob("*.md"))


def _pandoc(args: list[str], stdin: str | None = None) -> str:
    if shutil.which("pandoc") is None:
        raise HandoutError("pandoc is not installed: sudo apt-get install pandoc (or make deps)")
    proc = subprocess.run(["pandoc", *args], input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise HandoutError(f"pandoc {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def read_ast(source: Path) -> dict:
    """The handout as pandoc's JSON syntax tree."""
    return json.loads(_pandoc(["-f", MARKDOWN, "-t", "json", str(source)]))


def _walk(node, visit):
    """Calls visit(element) on every pandoc element ({"t": ..., "c": ...}) in the tree."""
    if isinstance(node, dict):
        if "t" in node:
            visit(node)
        for value in node.values():
            _walk(value, visit)
    elif isinstance(node, list):
        for item in node:
            _walk(item, visit)


def _plain_text(inlines: list) -> str:
    parts = []

    def visit(el):
        if el["t"] in ("Str", "Code"):
            parts.append(el["c"] if el["t"] == "Str" else el["c"][1])
        elif el["t"] in ("Space", "SoftBreak", "LineBreak"):
            parts.append(" ")
    _walk(inlines, visit)
    return "".join(parts)


def title_of(ast: dict, fallback: str) -> str:
    for block in ast["blocks"]:
        if block["t"] == "Header" and block["c"][0] == 1:
            return _plain_text(block["c"][2])
    return fallback


def code_blocks(ast: dict) -> list[str]:
    """The text of every code block (fenced or indented)."""
    found = []
    _walk(ast, lambda el: found.append(el["c"][1]) if el["t"] == "CodeBlock" else None)
    return found


def inline_code(ast: dict) -> list[str]:
    found = []
    _walk(ast, lambda el: found.append(el["c"][1]) if el["t"] == "Code" else None)
    return found


def link_targets(ast: dict) -> list[tuple[str, str]]:
    """(kind, target) of every link and image: kind is "Link" or "Image"."""
    found = []
    _walk(ast, lambda el: found.append((el["t"], el["c"][2][0])) if el["t"] in ("Link", "Image") else None)
    return found


def is_local(target: str) -> bool:
    return bool(target) and not target.startswith(("#", "/", "mailto:")) and "://" not in target


def local_path(source: Path, target: str) -> Path:
    """The file a relative link of `source` points at, in the kit's tree."""
    return Path(posixpath.normpath((source.parent / target.split("#")[0]).as_posix()))


def rewrite_links(ast: dict, source: Path) -> None:
    """Makes the handout's relative links work from the rendered copy, one folder deeper."""
    def visit(el):
        if el["t"] not in ("Link", "Image"):
            return
        target = el["c"][2][0]
        if not is_local(target):
            return
        path, _, anchor = target.partition("#")
        resolved = local_path(source, path)
        if resolved.is_relative_to(HANDOUTS_DIR):
            if path.endswith(".md"):
                path = path[:-3] + ".html"
        else:
            path = "../" + path
        el["c"][2][0] = path + (f"#{anchor}" if anchor else "")
    _walk(ast, visit)


def figure_captions() -> dict[str, str]:
    """{figure name: caption} from handouts/figures/figures.toml, the one place captions live."""
    import tomllib
    manifest = HANDOUTS_DIR / "figures" / "figures.toml"
    if not manifest.exists():
        return {}
    return {f["name"]: f.get("caption", "") for f in tomllib.loads(manifest.read_text()).get("figure", [])}


def _figure_html(image: dict, captions: dict[str, str]) -> str:
    target = image["c"][2][0]
    alt = _plain_text(image["c"][1])
    name = posixpath.splitext(posixpath.basename(target))[0]
    caption = captions.get(name) or alt
    return (f'<figure><img src="{html.escape(target, quote=True)}" alt="{html.escape(alt, quote=True)}" />'
            f"<figcaption>{html.escape(caption, quote=False)}</figcaption></figure>")


def add_figure_captions(ast: dict, captions: dict[str, str]) -> None:
    """A paragraph of images alone becomes figures captioned from figures.toml (the alt text where
    a figure is not listed there); two or more images in one paragraph stand side by side."""
    blocks = ast["blocks"]

    def convert(block_list: list) -> None:
        for index, block in enumerate(block_list):
            if block["t"] in ("BlockQuote", "Div"):
                convert(block["c"] if block["t"] == "BlockQuote" else block["c"][1])
            elif block["t"] in ("BulletList", "OrderedList"):
                for item in (block["c"] if block["t"] == "BulletList" else block["c"][1]):
                    convert(item)
            if block["t"] != "Para":
                continue
            images = [el for el in block["c"] if el["t"] == "Image"]
            if not images or any(el["t"] not in ("Image", "Space", "SoftBreak") for el in block["c"]):
                continue
            figures = "".join(_figure_html(image, captions) for image in images)
            if len(images) > 1:
                figures = f'<div class="figure-row">{figures}</div>'
            block_list[index] = {"t": "RawBlock", "c": ["html", figures]}
    convert(blocks)


def render(source: Path, out_dir: Path) -> Path:
    relative = source.relative_to(HANDOUTS_DIR)
    out = out_dir / relative.with_suffix(".html")
    out.parent.mkdir(parents=True, exist_ok=True)
    ast = read_ast(source)
    rewrite_links(ast, source)
    add_figure_captions(ast, figure_captions())
    css = posixpath.relpath("style.css", relative.parent.as_posix())
    _pandoc(["-f", "json", "-t", "html5", "--standalone", "--mathml", "--toc", "--toc-depth=2",
             "--css", css, "--metadata", f"pagetitle={title_of(ast, source.stem)}",
             "-o", str(out)], stdin=json.dumps(ast))
    return out


def render_all(out_dir: Path = DEFAULT_OUT) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(STYLE, out_dir / "style.css")
    return [render(source, out_dir) for source in handout_sources()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m authoring.handouts", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT.relative_to(KIT_ROOT)}")
    args = p.parse_args(argv)
    try:
        for path in render_all(args.out):
            print(f"handout: {path.relative_to(KIT_ROOT) if path.is_relative_to(KIT_ROOT) else path}")
    except HandoutError as e:
        print(f"handouts: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
