"""Whether a sandboxed command started, and under which launcher, is read from the sandbox's
status records as data (run._status_records), never from their text."""

from grader.run import CONFINE_EXEC, _status_records


def test_bubblewraps_records_are_read_one_after_the_other():
    data = b'{ "child-pid": 12 }\n{ "exit-code": 0 }\n'
    assert _status_records(data) == [{"child-pid": 12}, {"exit-code": 0}]


def test_a_record_over_several_lines_is_one_record():
    data = b'{\n    "child-pid": 12,\n    "cgroup-namespace": 4026531835\n}\n{ "exit-code": 137 }'
    assert _status_records(data) == [{"child-pid": 12, "cgroup-namespace": 4026531835}, {"exit-code": 137}]


def test_confines_record_names_its_launcher():
    records = _status_records(b'{"child-pid": 5, "exec": "labkit-confine"}\n')
    assert any(record.get("exec") == CONFINE_EXEC for record in records)


def test_no_record_or_a_broken_one_is_no_start():
    assert _status_records(b"") == []
    assert _status_records(b"labkit-confine: child-pid") == []  # the words alone are not a record
    assert _status_records(b'{"child-pid": 7}\n{"truncat') == [{"child-pid": 7}]
