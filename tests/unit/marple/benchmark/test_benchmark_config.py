"""``BenchmarkConfig.from_options``: the run ``marple benchmark``'s options ask for, and errors naming the option."""

from pathlib import Path

import pytest

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.presets import PRESETS


def test_from_options_overrides_only_the_sizes_given():
    cfg = BenchmarkConfig.from_options("small", trials=4, train_steps=7, splits="ood, in,ood", uncut="uniform")
    small = PRESETS["small"]
    assert (cfg.preset.trials, cfg.preset.rollouts, cfg.preset.mcts) == (4, small.rollouts, small.mcts)
    assert cfg.preset.train == {**small.train, "max_steps": 7}
    assert cfg.preset.splits == ("ood", "in") and cfg.preset.uncut == ("uniform",)
    assert cfg.out == Path("runs/benchmark-small") and cfg.variants == ("vision", "audio", "language", "all")


def test_from_options_names_the_output_for_suspects_and_original_houses():
    shared = BenchmarkConfig.from_options("quick", shared=True, scenarios=["sandwich"], variants="vision")
    assert shared.out == Path("runs/benchmark-quick-3-suspects-shared") and shared.scenarios[0].startswith("sandwich")
    original = BenchmarkConfig.from_options(houses="original", scenarios=["pillow"], out=None)
    assert original.out == Path("runs/benchmark-small-original-houses") and original.scenarios == ("pillow",)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"uncut": "uniform,smell"}, "--uncut: unknown ['smell']"),
        ({"splits": " , "}, "--splits: choose from in, ood"),
        ({"variants": ""}, "--variants: unknown []"),
        ({"suspects": 3, "houses": "original"}, "--houses original: the original benchmark published houses"),
    ],
)
def test_from_options_errors_name_the_option(options, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        BenchmarkConfig.from_options(**options)
