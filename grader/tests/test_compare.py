from array import array

from grader.compare import compare_files
from grader.labs import Compare


def write(path, typecode, values):
    path.write_bytes(array(typecode, values).tobytes())
    return path


def test_i32_square_matrix_names_row_and_column(tmp_path):
    expected = write(tmp_path / "e", "i", [0, 1, 2, 3, 4, 5, 6, 7, 8])
    actual = write(tmp_path / "a", "i", [0, 1, 2, 3, 4, 9, 6, 7, 8])
    assert compare_files(expected, actual, Compare("i32", matrix=True)) == \
        "entry 5 (row 1, column 2): expected 5, got 9; 1 of 9 entries wrong"


def test_a_vector_whose_length_is_a_square_stays_a_vector(tmp_path):
    expected = write(tmp_path / "e", "i", [0, 1, 2, 3, 4, 5, 6, 7, 8])
    actual = write(tmp_path / "a", "i", [0, 1, 2, 3, 4, 9, 6, 7, 8])
    assert compare_files(expected, actual, Compare("i32")) == "entry 5: expected 5, got 9; 1 of 9 entries wrong"


def test_equal_files_pass(tmp_path):
    expected = write(tmp_path / "e", "i", range(10))
    assert compare_files(expected, write(tmp_path / "a", "i", range(10)), Compare("i32")) is None


def test_difference_past_the_first_chunk_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr("grader.compare.CHUNK_ENTRIES", 4)
    values = list(range(10))
    expected = write(tmp_path / "e", "i", values)
    values[9] = -1
    assert compare_files(expected, write(tmp_path / "a", "i", values), Compare("i32")) == \
        "entry 9: expected 9, got -1; 1 of 10 entries wrong"


def test_f32_tolerance(tmp_path):
    rule = Compare("f32", rtol=1e-3, atol=0.0)
    expected = write(tmp_path / "e", "f", [1.0, 100.0])
    assert compare_files(expected, write(tmp_path / "a", "f", [1.0005, 100.05]), rule) is None
    reason = compare_files(expected, write(tmp_path / "b", "f", [1.0, 100.5]), rule)
    assert reason == "entry 1: expected 100.0, got 100.5; 1 of 2 entries wrong"


def test_nan_never_passes(tmp_path):
    rule = Compare("f32", rtol=1.0, atol=1.0)
    expected = write(tmp_path / "e", "f", [1.0])
    assert "got nan" in compare_files(expected, write(tmp_path / "a", "f", [float("nan")]), rule)


def test_f32_exact_by_default(tmp_path):
    expected = write(tmp_path / "e", "f", [1.0, 2.0])
    assert compare_files(expected, write(tmp_path / "a", "f", [1.0, 2.0000002]), Compare("f32")) is not None


def test_text_compare_names_line(tmp_path):
    expected = tmp_path / "e.txt"
    expected.write_text("a\tb\n--\t3\n")
    actual = tmp_path / "a.txt"
    actual.write_text("a\tb\n--\t4\n")
    assert compare_files(expected, actual, Compare("text")) == "line 2: expected '--\\t3', got '--\\t4'; 1 of 2 lines differ"
    actual.write_text("a\tb\n--\t3\nextra\n")
    assert compare_files(expected, actual, Compare("text")) == "printed 3 lines, expected 2; line 3 is 'extra'"


def test_missing_output(tmp_path):
    expected = write(tmp_path / "e", "i", [1])
    assert compare_files(expected, tmp_path / "nothing", Compare("i32")) == "the program wrote no output file"


def test_every_wrong_entry_is_counted_across_chunks(tmp_path, monkeypatch):
    # A wholly wrong matrix and one wrong corner are different bugs: the reason says which.
    monkeypatch.setattr("grader.compare.CHUNK_ENTRIES", 4)
    expected = write(tmp_path / "e", "f", [float(i) for i in range(100)])
    actual = write(tmp_path / "a", "f", [float(i) + 0.5 for i in range(100)])
    assert compare_files(expected, actual, Compare("f32", matrix=True)).endswith("; 100 of 100 entries wrong")


def test_a_huge_wrong_output_is_counted_up_to_a_budget_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr("grader.compare.CHUNK_ENTRIES", 4)
    monkeypatch.setattr("grader.compare.COUNT_ENTRIES", 8)
    expected = write(tmp_path / "e", "i", range(40))
    actual = write(tmp_path / "a", "i", [-1] * 40)
    reason = compare_files(expected, actual, Compare("i32"))
    assert reason.startswith("entry 0: expected 0, got -1; ")
    assert reason.endswith("8 of the first 8 of 40 entries wrong (the rest not counted)")
