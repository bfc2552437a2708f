"""``python -m marple_eval.llm.local -- COMMAND``: the command runs while the model is served, told where it is
through the LLM method's environment variables, and its status is the exit status (the server itself stood in for:
the real one is tests/unit/marple_eval/llm/test_llm_local.py's, slow)."""

from __future__ import annotations

import sys

from marple_eval.llm import local


def test_a_command_after_the_dashes_runs_against_the_served_model_and_gives_its_status(monkeypatch, tmp_path):
    served = []
    monkeypatch.setattr(local.LocalServer, "start", lambda self: served.append("up") or self.base_url)
    monkeypatch.setattr(local.LocalServer, "stop", lambda self: served.append("down"))
    check = (
        "import os, sys; e = os.environ; "
        "sys.exit(3 if (e['MARPLE_LLM_BASE_URL'], e['MARPLE_LLM_MODEL'], e['MARPLE_LLM_API_KEY']) == "
        "('http://127.0.0.1:8391/v1', 'Tiny-Q4', 'none') else 1)"
    )
    argv = ["--model", str(tmp_path / "m.gguf"), "--name", "Tiny-Q4", "--port", "8391", "--", sys.executable, "-c"]
    assert local.main([*argv, check]) == 3
    assert served == ["up", "down"]
