"""Errors that blame the right party: a plugin model's failures and bad answers are reported as its own.

A model's exception (sys.exit included) is a MethodError naming the model, what it was doing, the exception's
class and message, and ``marple evaluate`` exits 2 writing no results; answers that are not one probability per
suspect are refused; finite non-negative ones that do not sum to 1 are rescaled with one warning per run.
"""

from __future__ import annotations

import json
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch

from marple.cli.main import build_parser, main
from marple_eval.methods.guard import AnswerCheck, InvalidAnswerError, MethodError, RescaledAnswerWarning, check_answer
from marple_eval.protocol import ProtocolSettings, dataset_episodes, evaluate
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

PLUGIN = textwrap.dedent(
    """
    import sys

    from marple_eval import WhodunitMethod


    class Answers(WhodunitMethod):
        name = "answers"

        def __init__(self, a=0.5, b=0.5):
            self.answer = (a, b)  # --model-arg values, read as JSON: 0.9, "0.5", true, NaN, null ...

        def predict(self, trial):
            return self.answer


    class Raiser(WhodunitMethod):
        name = "raiser"

        def predict(self, trial):
            return {}["boom"]


    class Exiter(WhodunitMethod):
        name = "exiter"

        def predict(self, trial):
            sys.exit(0)


    class Peeker(WhodunitMethod):
        name = "peeker"
        reads = frozenset({"vision"})

        def predict(self, trial):
            trial.agents[0].audio  # not declared
            return 0.5, 0.5


    class BrokenInit(WhodunitMethod):
        name = "broken-init"

        def __init__(self):
            raise RuntimeError("no weights here")

        def predict(self, trial):
            return 0.5, 0.5
    """
)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> MarpleDataset:
    root = tmp_path_factory.mktemp("blame") / "data"
    generate_dataset(
        DatasetSpec([Unit.scenario("pillow")], Sizes(1, 2, 1, 1), seed=3, splits=("test",)), root, progress=False
    )
    return MarpleDataset(root)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "plugin_models.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    sys.modules.pop("plugin_models", None)


def evaluate_cli(data, model: str, out, *model_args: str) -> int:
    args = ["evaluate", "--data", str(data.root), "--model", model, "--out", str(out), "--no-progress"]
    return main([*args, *(x for a in model_args for x in ("--model-arg", a))])


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("Raiser", "method 'raiser' raised KeyError in predict on trial pillow/h00/000: 'boom'"),
        ("Exiter", "method 'exiter' called sys.exit(0) in predict on trial pillow/h00/000; a method must not exit"),
        ("Peeker", "method 'peeker' raised UndeclaredModalityError in predict on trial pillow/h00/000: "),
        ("BrokenInit", "method 'plugin_models:BrokenInit' raised RuntimeError in building it: no weights here"),
    ],
)
def test_a_plugins_own_failure_is_its_error_with_exit_2_and_no_results(data, plugin, capsys, model, message):
    out = plugin / "run.json"
    assert evaluate_cli(data, f"plugin_models:{model}", out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"marple evaluate: error: {message}") and "internal error" not in err
    assert not out.exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_shows_the_models_traceback_and_still_exits_2(data, plugin, capsys, where):
    """``-v`` before the subcommand or after it (where the hint's reader puts it): the same exit, plus the trace."""
    out = plugin / "run.json"
    args = ["evaluate", "--data", str(data.root), "--model", "plugin_models:Raiser", "--out", str(out), "--no-progress"]
    assert main(["-v", *args] if where == "before" else [*args, "-v"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and 'return {}["boom"]' in err  # the model's own line, through the cause
    assert "marple evaluate: error: method 'raiser' raised KeyError" in err and "run with -v" not in err
    assert not out.exists()


def test_verbose_is_off_unless_given_on_either_side():
    parser = build_parser()
    assert parser.parse_args(["evaluate"]).verbose is False
    assert parser.parse_args(["-v", "evaluate"]).verbose is True
    assert parser.parse_args(["evaluate", "--verbose"]).verbose is True


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ('"0.5"', '"0.5"', "'0.5' is not a number"),
        ("true", "false", "True is not a number"),
        ("NaN", "0.5", "must be finite, non-negative and not all zero"),
        ("-0.1", "1.1", "must be finite, non-negative and not all zero"),
        ("0", "0", "must be finite, non-negative and not all zero"),
        ("null", "1", "None is not a number"),
    ],
)
def test_an_answer_that_is_not_a_probability_is_refused(data, plugin, capsys, a, b, reason):
    assert evaluate_cli(data, "plugin_models:Answers", plugin / "run.json", f"a={a}", f"b={b}") == 2
    err = capsys.readouterr().err
    assert err.startswith("marple evaluate: error: method 'answers' answered") and reason in err


def test_answers_that_do_not_sum_to_one_are_rescaled_with_one_warning_per_run(data, plugin):
    out = plugin / "run.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert evaluate_cli(data, "plugin_models:Answers", out, "a=0.9", "b=0.3") == 0
    rescaled = [w for w in caught if issubclass(w.category, RescaledAnswerWarning)]
    assert len(rescaled) == 1 and "answered (0.9, 0.3) at pillow/h00/000, tau 0, which sums to 1.2" in str(
        rescaled[0].message
    )
    answers = {round(p, 9) for trial in json.loads(out.read_text())["trials"] for p in trial["p_culprit"]}
    assert answers <= {0.75, 0.25, 0.5}  # scaled (0.5: the points the cutoff answers)


def test_the_library_raises_model_errors_too_and_keyboard_interrupts_pass_through(data):
    from marple_eval import WhodunitMethod

    class Interrupted(WhodunitMethod):
        name = "interrupted"

        def predict(self, trial):
            raise KeyboardInterrupt

    class ShortAnswers(WhodunitMethod):
        name = "short"

        def predict(self, trial):
            return 0.5, 0.5

        def predict_all(self, trials):
            return [(0.5, 0.5)]  # one answer for many evidence points

    episodes = dataset_episodes(data, ["pillow"], limit=1)
    with pytest.raises(KeyboardInterrupt):
        evaluate(Interrupted, episodes, progress=False)
    with pytest.raises(InvalidAnswerError, match=r"method 'short' answered 1 evidence points of \d+ on pillow/h00/000"):
        evaluate(ShortAnswers, episodes, ProtocolSettings(cutoff=None), progress=False)


def test_the_answer_check_takes_arrays_and_tensors_and_refuses_the_rest():
    assert check_answer(np.array([0.25, 0.75]), 2) == (0.25, 0.75)
    assert check_answer((torch.tensor(0.5), np.float32(0.5)), 2) == (0.5, 0.5)
    for bad in (0.5, "ab", {"A": 0.5, "B": 0.5}, (0.5,), (torch.tensor(True), 1.0), (np.bool_(True), 1.0)):
        with pytest.raises(InvalidAnswerError):
            check_answer(bad, 2, "m")
    check = AnswerCheck("m")
    with pytest.warns(RescaledAnswerWarning):
        assert check((2.0, 2.0), 2) == (0.5, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check((3.0, 1.0), 2) == (0.75, 0.25) and check.rescaled == 2  # the second is not announced
    assert issubclass(InvalidAnswerError, MethodError) and issubclass(InvalidAnswerError, ValueError)
