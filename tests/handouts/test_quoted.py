"""Measured figures quoted in the kit (authoring/quoted.py): every marked copy agrees with the data
file of its run, every marker names a recorded figure, every recorded figure is quoted somewhere."""

import json

import pytest

from authoring import quoted

RECORD = """machine = "a GPU"
date = "2026-11-24"
command = "make bench LAB=demo"

[gpu-bench]
argv = ["gpu", "--bench", "64"]
updates_per_s = 14.0614e12
kernel_ms = 312.83
"""


def test_every_copy_in_the_kit_agrees_with_its_recorded_run():
    assert quoted.problems() == []


def test_the_kit_quotes_each_recorded_lab():
    markers = quoted.all_markers()
    assert {m.data for m in markers} >= {"apsp-bench", "matmul-bench"}
    assert all(m.figure in quoted.load_record(m.data).figures for m in markers)


@pytest.fixture
def demo(tmp_path, monkeypatch):
    monkeypatch.setattr(quoted, "DATA_DIR", tmp_path)
    (tmp_path / "demo-bench.toml").write_text(RECORD)
    return tmp_path


def _markdown(value="14.06", ms="312.8"):
    return ("rate <!-- fig demo-bench gpu-bench.updates_per_s /1e12 %.2f -->" + value + "<!-- /fig --> x 10^12,\n"
            "time <!-- fig demo-bench gpu-bench.kernel_ms %.1f -->" + ms + "<!-- /fig --> ms\n")


def test_a_copy_that_disagrees_is_named_and_rewritten(demo):
    page = demo / "page.md"
    page.write_text(_markdown(value="13.94"))
    found = quoted.problems([page])
    assert len(found) == 1 and "page.md:1" in found[0] and "14.06" in found[0] and "13.94" in found[0]
    assert quoted.rewrite([page]) == [page]
    assert page.read_text() == _markdown()
    assert quoted.problems([page]) == [] and quoted.rewrite([page]) == []


def test_c_comment_markers(demo):
    source = demo / "kernel.cu"
    source.write_text("// measured: /*fig demo-bench gpu-bench.kernel_ms %.2f*/300.00/*/fig*/ ms\nint x;\n")
    quoted.rewrite([source])
    assert source.read_text() == "// measured: /*fig demo-bench gpu-bench.kernel_ms %.2f*/312.83/*/fig*/ ms\nint x;\n"


def test_a_recorded_figure_no_marker_quotes(demo):
    page = demo / "page.md"
    page.write_text("rate <!-- fig demo-bench gpu-bench.updates_per_s /1e12 %.2f -->14.06<!-- /fig -->\n")
    found = quoted.problems([page])
    assert len(found) == 1 and "gpu-bench.kernel_ms is quoted nowhere" in found[0]


def test_a_marker_naming_no_recorded_figure(demo):
    page = demo / "page.md"
    page.write_text(_markdown() + "<!-- fig demo-bench gpu-bench.ratio %.3f -->0.852<!-- /fig -->\n")
    assert any("has no figure gpu-bench.ratio" in line for line in quoted.problems([page]))
    with pytest.raises(quoted.QuotedError, match="has no figure"):
        quoted.rewrite([page])


def test_a_malformed_marker_is_an_error(demo):
    page = demo / "page.md"
    page.write_text("<!-- fig demo-bench gpu-bench.kernel_ms -->312.8<!-- /fig -->\n")  # no format
    with pytest.raises(quoted.QuotedError, match="do not read as"):
        quoted.find_markers(page)


def test_record_keeps_the_quoted_figures(demo):
    page = demo / "page.md"
    page.write_text(_markdown())
    result = json.loads('{"lab": "demo", "kernel_ms": 300.5, "updates_per_s": 1.5e13, "copy_ms": 9.0, '
                        '"program": "gpu"}')
    path, left_out = quoted.record("demo-bench", [(["gpu", "--bench", "64"], result)], "an H100",
                                   "make bench LAB=demo RECORD=1", date="2026-11-26", files=[page])
    assert left_out == ["gpu-bench.copy_ms"]
    record = quoted.load_record("demo-bench")
    assert (record.machine, record.date) == ("an H100", "2026-11-26")
    assert record.figures == {"gpu-bench.kernel_ms": 300.5, "gpu-bench.updates_per_s": 1.5e13}
    quoted.rewrite([page])
    assert page.read_text() == _markdown(value="15.00", ms="300.5")


def test_run_names():
    assert quoted.run_name(["gpu", "--bench", "16384", "--reps", "3"]) == "gpu-bench"
    assert quoted.run_name(["gpu", "--bench-io", "11000"]) == "gpu-bench-io"
    assert quoted.run_name(["matmul"]) == "matmul"


def test_make_bench_record_writes_the_data_file_and_rewrites_the_copies(demo, monkeypatch):
    """grader bench --record (make bench RECORD=1), the build and the runs faked: each run's
    LABKIT_RESULT JSON becomes its table, and the copies follow."""
    import types

    import grader.cli as cli

    page = demo / "page.md"
    page.write_text(_markdown())
    monkeypatch.setattr(quoted, "searched_files", lambda root=None: [page])
    monkeypatch.setattr(quoted, "gpu_name", lambda: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(cli, "emulate_without_gpu", lambda args: False)
    monkeypatch.setattr(cli, "has_gpu", lambda: True)
    monkeypatch.setattr(cli, "build_lab", lambda *a, **k: types.SimpleNamespace(ok=True))
    lab = types.SimpleNamespace(id="demo", bench=(("gpu", "--bench", "64"), ("gpu", "--bench-io", "64")))
    monkeypatch.setattr(cli, "load_lab", lambda lab_id: lab)

    def run(argv, env=None, **_):
        figures = {"kernel_ms": 290.31, "updates_per_s": 1.6e13} if argv[1] == "--bench" else {"total_ms": 9.5}
        with open(env["LABKIT_RESULT"], "w") as f:
            json.dump({"lab": "demo", **figures}, f)
        return types.SimpleNamespace(returncode=0)

    monkeypatch.setattr(cli.subprocess, "run", run)
    args = cli.parser().parse_args(["bench", "demo", "--record"])
    assert args.func(args) == 0
    record = quoted.load_record("demo-bench")
    assert record.machine == "NVIDIA H100 80GB HBM3" and record.command == "make bench LAB=demo RECORD=1"
    assert record.figures == {"gpu-bench.kernel_ms": 290.31, "gpu-bench.updates_per_s": 1.6e13}
    assert page.read_text() == _markdown(value="16.00", ms="290.3")
