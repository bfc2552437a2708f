"""AGENT's generalisation tests for the learned model: train on some types, rate trials of others.

For each train/test split of a test (:func:`marple_eval.expectations.scoring.generalisation_tests`:
``all``, ``leave_one_type_out``, ``leave_one_scenario_out``, ``single_type``,
``single_scenario``), a model is trained on the training trials of the split's
training types and rates the test trials of its test types::

    results = run_generalisation("leave_one_type_out", train_trials, test_trials, ToMnetConfig(), device="auto")
    table = pooled(results)   # marple_eval.expectations.scoring: each type scored by the model that held it out
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import torch

from marple_agents.tomnet.network import ToMnetConfig
from marple_agents.tomnet.rater import train_tomnet
from marple_eval.expectations.methods import Rating, rate_trials
from marple_eval.expectations.scoring import GeneralisationSplit, generalisation_tests
from marple_gym.expectations.trial import Trial


def run_generalisation(
    test_name: str,
    train_trials: Sequence[Trial],
    test_trials: Sequence[Trial],
    config: ToMnetConfig | None = None,
    device: str | torch.device = "auto",
    seed: int = 0,
    progress: bool = False,
) -> Iterator[tuple[GeneralisationSplit, list[Rating]]]:
    """Each split of ``test_name`` over the types ``test_trials`` cover, with the ratings of its test trials by a
    model trained on its training types' trials (one model per split, trained in turn)."""
    types = sorted({t.key.type for t in test_trials}, key=lambda k: tuple(int(p) for p in k.split(".")))
    for split in generalisation_tests(test_name, types):
        train = [t for t in train_trials if t.key.type in split.train]
        test = [t for t in test_trials if t.key.type in split.test]
        if not train or not test:
            continue
        model = train_tomnet(train, config, device, progress=progress)
        yield split, rate_trials(model, test, seed)
