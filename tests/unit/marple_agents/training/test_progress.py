"""Training progress goes to a log as it happens: plain lines where output is not a terminal."""

from __future__ import annotations

import io
import re

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from tiny_models import train_tiny  # noqa: E402

from marple_agents.training.progress import ProgressLines, progress_callbacks  # noqa: E402


def test_training_writes_a_line_per_interval_and_one_at_the_end(tmp_path):
    stream = io.StringIO()
    callbacks = [ProgressLines("tiny model", interval=0.0, stream=stream)]
    train_tiny(tmp_path / "policy", max_steps=10, batch_size=8, progress=True, callbacks=callbacks)
    lines = stream.getvalue().splitlines()
    steps = [int(re.match(r"tiny model: step (\d+)/10 \(\d+ %\), epoch \d+", line).group(1)) for line in lines]
    assert steps == [*range(1, 11), 10]  # every step (interval 0), then the end of training
    assert "train/loss" in lines[-1] and lines[-1].endswith("steps/s")  # logged at step 10 (every 10 steps)


def test_a_terminal_gets_lightnings_bar_and_anything_else_lines(monkeypatch):
    assert progress_callbacks(False) == []
    (lines,) = progress_callbacks(True, "agent model")  # pytest captures stdout: no terminal
    assert isinstance(lines, ProgressLines) and lines.label == "agent model"
    for stream in ("stdout", "stderr"):
        monkeypatch.setattr(f"sys.{stream}.isatty", lambda: True, raising=False)
    assert progress_callbacks(True) == []
