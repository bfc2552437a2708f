"""bench/belief_table.py writes the family's whole table from nothing: the panel with its verdict, the answer key
apart from the methods, bip over its seeds, and the CPU seconds of every stage; run again, it resumes."""

from __future__ import annotations

import pytest
from bench_scripts import load_bench


@pytest.mark.slow
def test_the_belief_table_is_written_from_nothing_and_resumes(tmp_path, capsys):
    argv = ["--out", str(tmp_path), "--houses", "4", "--episodes", "10", "--train-episodes", "8", "--steps", "3",
            "--seeds", "2", "--workers", "1"]  # fmt: skip
    text = load_bench("belief_table").main(argv)
    assert (tmp_path / "table.md").read_text() == text + "\n"
    assert "## Shortcut panel" in text and "shortcut panel: **" in text and "text classifier" in text
    assert "| answer key (ceiling) | chance (uniform) | bip, 2 seeds |" in text and "bip-privileged" not in text
    assert "bip (privileged: the generator's priors), 2 seeds" in text and "bip training, seed 1" in text
    again = load_bench("belief_table").main(argv)
    assert "bip training" not in again and again.split("## Stages")[0] == text.split("## Stages")[0]


def test_the_belief_table_refuses_no_seeds():
    with pytest.raises(SystemExit):
        load_bench("belief_table").main(["--seeds", "0"])
