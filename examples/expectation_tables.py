"""The expectation family's tables and plot, as docs/expectations.md reports them.

python examples/expectation_tables.py                      # 100 training and 40 test trials per type (~25 CPU min)
python examples/expectation_tables.py --train 8 --test 4   # a quick look (about a minute)

Prints the accuracy table of the exact observer, the uniform rater and ToMnet (trained on the training split),
then the generalisation tests (leave one type or scenario out; train on a single type or scenario), and draws
the accuracy plot. Every figure is a function of the seed and the trial counts.
"""

from __future__ import annotations

import argparse

from marple_agents.tomnet import ToMnetConfig, train_tomnet
from marple_agents.tomnet.generalisation import run_generalisation
from marple_eval.expectations import (
    ExpectationObserver,
    ExpectationUniform,
    accuracy_table,
    format_table,
    plot_accuracy,
    rate_trials,
)
from marple_eval.expectations.scoring import matrix, pooled
from marple_gym.expectations import make_trial, trial_keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=100, help="training trials per type (default 100)")
    parser.add_argument("--test", type=int, default=40, help="test trials per type (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default="accuracy.png", help="where the accuracy plot goes")
    args = parser.parse_args()

    train = [make_trial(k, args.seed) for k in trial_keys("train", args.train)]
    test = [make_trial(k, args.seed) for k in trial_keys("test", args.test)]
    config = ToMnetConfig(seed=args.seed)
    tables = {r.name: accuracy_table(rate_trials(r, test)) for r in (ExpectationObserver(), ExpectationUniform())}
    tables["tomnet"] = accuracy_table(rate_trials(train_tomnet(train, config, device="cpu"), test))
    print(format_table(tables))
    plot_accuracy(tables, args.plot)
    for name in ("leave_one_type_out", "leave_one_scenario_out"):
        print(name, format_table({"tomnet": pooled(run_generalisation(name, train, test, config, "cpu"))}))
    for name in ("single_type", "single_scenario"):
        print(name, format_table(matrix(run_generalisation(name, train, test, config, "cpu"))))


if __name__ == "__main__":
    main()
