"""bench/bench_questions.py runs and prints its figures (tiny sizes: the figures themselves are not tested)."""

from __future__ import annotations

import pytest
from bench_scripts import load_bench


def _bench():
    return load_bench("bench_questions")


def test_the_question_bench_prints_generation_and_answer_times(capsys):
    _bench().main(["--houses", "1", "--episodes", "2", "--cold", "2"])
    out = capsys.readouterr().out
    assert "questions per CPU second" in out and "exact observer, cold" in out and "observer, a whole split" in out


def test_the_question_bench_refuses_empty_sizes():
    with pytest.raises(SystemExit):
        _bench().main(["--houses", "0"])
