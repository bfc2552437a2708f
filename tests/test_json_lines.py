"""The strict JSON-lines reader: every line read or refused by file and line number, a crash's torn tail dropped
only where the caller allows it, and the usage ledger read through it."""

from __future__ import annotations

import pytest

from marple_eval.llm.client import LLMError, ledger_totals
from marple_gym.errors import MarpleError
from marple_gym.validation import message_error, read_json_lines

ERROR = message_error(MarpleError)


def test_every_line_is_read_with_its_number_and_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n\n[2]\n')
    read = read_json_lines(path, ERROR)
    assert read.entries == [(1, {"a": 1}), (3, [2])] and read.torn_tail == 0


@pytest.mark.parametrize(
    "text, reason",
    [
        (b'{"a": 1}\n{"a": \n{"a": 3}\n', r"a.jsonl: line 2: malformed JSON: Expecting value at column 7"),
        (b'{"a": 1}\n{"a": NaN}\n', r"a.jsonl: line 2: malformed JSON: NaN is not a JSON number"),
        (b'{"a": 1}\n"\xff"\n', r"a.jsonl: line 2: not UTF-8 text"),
        (b'{"a": 1}\n{"a": 2', r"a.jsonl: line 2: malformed JSON"),  # a torn tail is an error unless allowed
    ],
)
def test_a_malformed_line_names_the_file_and_the_line(tmp_path, text, reason):
    path = tmp_path / "a.jsonl"
    path.write_bytes(text)
    with pytest.raises(MarpleError, match=reason):
        read_json_lines(path, ERROR)


def test_a_torn_last_line_is_dropped_with_its_length_only_where_allowed(tmp_path, caplog):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2')
    read = read_json_lines(path, ERROR, drop_torn_tail=True)
    assert read.entries == [(1, {"a": 1})] and read.torn_tail == len(b'{"a": 2')
    assert "dropping a partial last line" in caplog.text
    path.write_bytes(b'{"a": 1}\n{"a": 2}')  # a whole last line without its newline is kept
    assert read_json_lines(path, ERROR, drop_torn_tail=True).entries == [(1, {"a": 1}), (2, {"a": 2})]


def test_lines_read_from_an_offset_keep_their_numbers_in_the_file(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a": \n')
    with pytest.raises(MarpleError, match="line 3: malformed JSON"):
        read_json_lines(path, ERROR, offset=len(b'{"a": 1}\n'))


def test_a_usage_ledger_with_a_wrong_field_names_the_line_and_field(tmp_path):
    path = tmp_path / "usage.jsonl"
    good = '{"cached": false, "prompt_tokens": 5, "completion_tokens": 2, "cost_usd": 0.1}\n'
    path.write_text(good + good.replace("5", '"five"'))
    with pytest.raises(LLMError, match=r"usage.jsonl: line 2.prompt_tokens: expected an integer"):
        ledger_totals(path)
    path.write_text(good)
    assert ledger_totals(path)["prompt_tokens"] == 5
