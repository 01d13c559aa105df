"""The handouts build (make handouts) and read as one course: every lab has a handout with the
course's sections, the course page links them all, links lead somewhere, and every handout with
spot checks has its answers kept apart in handouts/answers/."""

import re
import shutil
import subprocess

import pytest

from authoring import handouts
from authoring.handouts import ANSWERS_DIR, HANDOUTS_DIR, handout_sources, is_local, link_targets, local_path, read_ast
from grader.labs import lab_ids
from grader.paths import KIT_ROOT

if shutil.which("pandoc") is None:
    pytest.skip("pandoc is not installed (make deps installs it): the handouts cannot be built",
                allow_module_level=True)

# The sections every lab's handout has, in this order (its goal comes first, before any heading).
LAB_SECTIONS = ("Background", "Tasks", "Running it", "Spot checks", "Explorations", "Grading")


def headings(source, level=2):
    found = []
    handouts._walk(read_ast(source), lambda el: found.append(handouts._plain_text(el["c"][2]))
                   if el["t"] == "Header" and el["c"][0] == level else None)
    return found


def test_make_handouts_renders_every_handout(tmp_path):
    out = tmp_path / "handouts"
    rendered = handouts.render_all(out)
    assert (out / "style.css").exists()
    assert {p.relative_to(out).with_suffix(".md") for p in rendered} == \
        {s.relative_to(HANDOUTS_DIR) for s in handout_sources()}
    for page in rendered:
        html = page.read_text()
        assert "<title>" in html and "</html>" in html
        for href in re.findall(r'href="([^":#"]+\.md)[#"]', html):  # a handout's .md: rewritten
            assert not (page.parent / href).resolve().is_relative_to(out.resolve()), f"{page.name} links {href}"


def test_links_are_rewritten_for_the_rendered_copy(tmp_path):
    source = HANDOUTS_DIR / "probe.md"
    ast = {"blocks": [], "x": [
        {"t": "Link", "c": [["", [], []], [], ["emulation.md#gdb", ""]]},
        {"t": "Link", "c": [["", [], []], [], ["../labs/common/cuda_check.h", ""]]},
        {"t": "Image", "c": [["", [], []], [], ["figures/a.svg", ""]]},
        {"t": "Link", "c": [["", [], []], [], ["https://example.org/x.md", ""]]}]}
    handouts.rewrite_links(ast, source)
    assert [el["c"][2][0] for el in ast["x"]] == \
        ["emulation.html#gdb", "../../labs/common/cuda_check.h", "figures/a.svg", "https://example.org/x.md"]


@pytest.mark.parametrize("source", handout_sources(), ids=lambda p: str(p.relative_to(HANDOUTS_DIR)))
def test_every_link_leads_somewhere(source):
    for kind, target in link_targets(read_ast(source)):
        if not is_local(target) or kind == "Image":  # images: test_figures.py
            continue
        path = local_path(source, target)
        assert path.exists(), f"{source.name} links {target}, which does not exist"
        assert path.is_relative_to(KIT_ROOT), f"{source.name} links {target}, outside the kit"
        anchor = target.partition("#")[2]
        if anchor and path.suffix == ".md":
            assert anchor in header_ids(path), f"{source.name} links {target}: {path.name} has no such heading"


def header_ids(source) -> set[str]:
    found = set()
    handouts._walk(read_ast(source), lambda el: found.add(el["c"][1][0]) if el["t"] == "Header" else None)
    return found


def test_the_course_page_links_every_lab():
    linked = {local_path(HANDOUTS_DIR / "index.md", t).name
              for kind, t in link_targets(read_ast(HANDOUTS_DIR / "index.md")) if is_local(t)}
    missing = [lab for lab in lab_ids() if f"{lab}.md" not in linked]
    assert not missing, f"handouts/index.md does not link the handouts of {missing}"


@pytest.mark.parametrize("lab", lab_ids())
def test_lab_handout_has_the_course_sections_in_order(lab):
    found = headings(HANDOUTS_DIR / f"{lab}.md")
    titles = headings(HANDOUTS_DIR / f"{lab}.md", level=1)
    assert len(titles) == 1 and titles[0].startswith("Lab "), f"{lab}.md: one title, 'Lab N: ...'"
    positions = []
    for section in LAB_SECTIONS:
        at = [i for i, h in enumerate(found) if h == section or h.startswith(section + " ")]
        assert at, f"{lab}.md has no '## {section}' section (its sections: {found})"
        positions.append(at[0])
    assert positions == sorted(positions), f"{lab}.md: sections out of the course's order {LAB_SECTIONS}"


@pytest.mark.parametrize("lab", lab_ids())
def test_lab_handout_says_how_to_run_without_a_gpu_and_on_a_cluster(lab):
    targets = {t for kind, t in link_targets(read_ast(HANDOUTS_DIR / f"{lab}.md")) if kind == "Link"}
    assert "emulation.md" in targets, f"{lab}.md does not link emulation.md (No GPU? Use EMU=1)"
    assert "index.md#on-a-cluster" in targets, f"{lab}.md does not link index.md#on-a-cluster"


@pytest.mark.parametrize("lab", lab_ids())
def test_spot_checks_have_answers_kept_apart(lab):
    answers = ANSWERS_DIR / f"{lab}.md"
    assert answers.exists(), f"{lab}.md has spot checks but handouts/answers/{lab}.md is missing"
    asked = _numbered_items(HANDOUTS_DIR / f"{lab}.md", "Spot checks")
    answered = _numbered_items(answers, "Spot checks")
    assert asked and answered >= asked, f"answers/{lab}.md answers {answered} of {asked} spot checks"


def _numbered_items(source, section) -> int:
    """How many items the first ordered list under `## section` has."""
    blocks = read_ast(source)["blocks"]
    inside = False
    for block in blocks:
        if block["t"] == "Header" and block["c"][0] == 2:
            inside = handouts._plain_text(block["c"][2]).startswith(section)
        elif inside and block["t"] == "OrderedList":
            return len(block["c"][1])
    return 0


def test_make_handouts_target(tmp_path):
    proc = subprocess.run(["make", "-n", "handouts"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "authoring.handouts" in proc.stdout and "authoring.figures" in proc.stdout


def test_figures_are_captioned_from_the_manifest(tmp_path):
    """Every figure a handout shows gets its caption from handouts/figures/figures.toml; two
    drawings in one paragraph (fw's two 10-cycles) stand side by side."""
    captions = handouts.figure_captions()
    assert captions
    page = handouts.render(HANDOUTS_DIR / "fw.md", tmp_path).read_text()
    for name in ("fw-graph1", "fw-dircycle10", "fw-undircycle10", "fw-scaling"):
        assert f"<figcaption>{captions[name]}</figcaption>" in page, name
    row = page[page.index('<div class="figure-row">'):]
    row = row[:row.index("</div>")]
    assert "fw-dircycle10.svg" in row and "fw-undircycle10.svg" in row
    for source in handout_sources():
        shown = sum(1 for kind, target in link_targets(read_ast(source)) if kind == "Image")
        html = handouts.render(source, tmp_path).read_text()
        assert html.count("<figcaption>") == shown, f"{source.name}: a figure without its caption"


def test_no_figure_is_shown_twice_as_ascii_art():
    """apsp's phases are the drawing apsp-phases.svg, not also a copy in a code block."""
    blocks = handouts.code_blocks(read_ast(HANDOUTS_DIR / "apsp.md"))
    assert not any("+------+" in block for block in blocks)
