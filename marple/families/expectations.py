"""The expectation family in the application: a trial set's test trials rated for surprise by a method
(:func:`evaluate_expectations`, what ``marple evaluate --family expectations`` runs), the learned rater trained on
a set's training split (:func:`train_rater`, ``marple train --family expectations``), and its generalisation
tests.

Methods: ``uniform``, ``observer`` (the exact observer), ``llm`` (a 0-100 rating; ``dry_run`` writes the
requests instead) from :mod:`marple_eval.expectations`, and ``tomnet`` (the learned rater) from
:mod:`marple_agents.tomnet`, trained and run on the ``--device`` the model runner resolves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple.families.runs import check_method, dry_run_note, dry_run_requests, journaled, per_type, run_settings
from marple_eval.expectations import ExactObserver, RatingResults, UniformRater, rate_trial
from marple_eval.expectations.llm import LLMRater
from marple_eval.expectations.results import read_rating
from marple_eval.expectations.scoring import GENERALISATION_TESTS, GeneralisationSplit, generalisation_tests
from marple_eval.results import ResultsError
from marple_gym.datasets.shards import file_sha256
from marple_gym.errors import MarpleError
from marple_gym.expectations import read_trial_set
from marple_gym.validation import message_error, reader

EXPECTATION_METHODS = ("uniform", "observer", "tomnet", "llm")
DEFAULT_DATA = "data/expectations"
GENERALISATION = tuple(t for t in GENERALISATION_TESTS if t != "all")
"""AGENT's four generalisation tests (G1-G4); ``all`` is the plain tomnet row."""


@dataclass(frozen=True)
class ExpectationEvaluation:
    """A method (one of :data:`EXPECTATION_METHODS`) scored on the test trials of the set in ``data``.

    ``checkpoint``: a tomnet rater to use (default: one trained here on the set's training split, with the
    ``model_args`` as its :class:`~marple_agents.tomnet.ToMnetConfig`, saved as ``<out>.tomnet.pt`` and reused
    by a resumed run); ``generalisation``: tomnet's generalisation tests to run too (one model per split);
    ``limit``: at most this many trials of each type; ``out`` None: ``results/expectations-<method>.json``."""

    method: str = "observer"
    data: str = DEFAULT_DATA
    checkpoint: str | None = None
    model_args: dict[str, Any] = field(default_factory=dict)
    device: str = "auto"
    generalisation: tuple[str, ...] = ()
    seed: int = 0
    dry_run: bool = False
    limit: int | None = None
    out: str | None = None
    progress: bool = True

    @property
    def results_path(self) -> Path:
        return Path(self.out or f"results/expectations-{self.method}.json")


def _check(request: ExpectationEvaluation) -> None:
    check_method("expectation", request.method, EXPECTATION_METHODS, request.dry_run)
    if request.generalisation and request.method != "tomnet":
        raise ValueError("--generalisation: only the learned rater (tomnet) is trained, so only it is tested so")
    bad = [t for t in request.generalisation if t not in GENERALISATION]
    if bad:
        raise ValueError(f"--generalisation: unknown test(s) {bad}; choose from {', '.join(GENERALISATION)}")
    if request.checkpoint is not None and not Path(request.checkpoint).is_file():
        raise MarpleError(
            f"{request.checkpoint}: no such ToMnet rater; train one with `marple train --family expectations "
            f"--data {request.data}`, or leave --checkpoint out to train one here"
        )


def tomnet_config(model_args: dict[str, Any]):
    """The :class:`~marple_agents.tomnet.ToMnetConfig` of ``--model-arg`` options (an unknown one named)."""
    from marple_agents.tomnet import ToMnetConfig

    try:
        return ToMnetConfig(**model_args)
    except TypeError:
        known = ", ".join(ToMnetConfig.__dataclass_fields__)
        raise ValueError(f"--model-arg: tomnet takes {known}; got {sorted(model_args)}") from None


def train_rater(data: str, config, device: str = "auto", progress: bool = True, types=None):
    """A ToMnet rater trained on the expected tests of the set's training split (validated on its validation
    split, where it has one), of ``types`` (default all)."""
    from marple_agents.tomnet import train_tomnet

    train = read_trial_set(data, "train", types)
    if not train:
        raise ValueError(f"{data}: the set has no training trials of {list(types or ['any type'])}")
    validation = read_trial_set(data, "validation", types)
    return train_tomnet(train, config, device=device, validation=validation, progress=progress)


def build_rater(request: ExpectationEvaluation, prompts: Path | None):
    """The rater a request names (tomnet: loaded, or trained on the set and saved beside the results)."""
    if request.method == "uniform":
        return UniformRater()
    if request.method == "observer":
        return ExactObserver()
    if request.method == "llm":
        options = dict(request.model_args)
        if prompts is not None:
            options["dry_run"] = str(prompts)
        return LLMRater.from_options(**options)
    from marple_agents.device import resolve_device
    from marple_agents.tomnet import ToMnetRater

    device = resolve_device(request.device)
    if request.checkpoint is not None:
        return ToMnetRater.load(request.checkpoint, device)
    config = tomnet_config(request.model_args)
    saved = request.results_path.with_suffix(".tomnet.pt")
    if saved.is_file() and Path(f"{request.results_path}.journal.jsonl").is_file():
        rater = ToMnetRater.load(saved, device)
        if rater.config == config:  # a resumed run: the model it trained
            return rater
    rater = train_rater(request.data, config, device, request.progress)
    rater.save(saved)
    return rater


def evaluate_expectations(
    request: ExpectationEvaluation, tell: Callable[[str], None] = lambda note: None
) -> RatingResults:
    """Rate the set's test trials with the request's method and save the results (resumable: see
    :func:`marple.families.runs.journaled`); a dry run writes the requests beside them and says so."""
    _check(request)
    trials = per_type(read_trial_set(request.data, "test"), request.limit, lambda t: t.key.type)
    if not trials:
        raise ValueError(f"{request.data}: the set's test split has no trials")
    out = request.results_path
    prompts = dry_run_requests(out, request.dry_run)
    rater = build_rater(request, prompts)
    name = f"{request.method} (dry run)" if request.dry_run else request.method
    settings = {
        **(rater.settings() if hasattr(rater, "settings") else {}),
        **run_settings(request.method, request.data, request.limit, request.dry_run, seed=request.seed,
                       generalisation=list(request.generalisation)),
    }  # fmt: skip
    if request.checkpoint is not None:
        settings["checkpoint"] = request.checkpoint
        settings["checkpoint_sha256"] = file_sha256(Path(request.checkpoint))
    header = {"family": "expectations", "method": name, "settings": settings}
    types = sorted({t.key.type for t in trials}, key=lambda k: tuple(int(p) for p in k.split(".")))
    splits = [s for g in request.generalisation for s in generalisation_tests(g, types)]
    items: list[tuple[str, Any]] = [(t.id, t) for t in trials] + [(f"{s.test_name}/{s.label}", s) for s in splits]

    def score(item: tuple[str, Any]) -> Any:
        what = item[1]
        if isinstance(what, GeneralisationSplit):
            return _generalisation_split(request, what, trials)
        return rate_trial(rater, what, request.seed).to_dict()

    records, journal = journaled(
        items, lambda item: item[0], score, out, header, progress=request.progress, desc=f"rating ({name})"
    )
    error = message_error(ResultsError)
    where = str(journal.path)
    ratings = [read_rating(reader(r, where, error)) for r in records[: len(trials)]]
    generalisation: dict[str, dict[str, list]] = {}
    for (_, split), found in zip(items[len(trials) :], records[len(trials) :]):
        if found is not None:
            generalisation.setdefault(split.test_name, {})[split.label] = [
                read_rating(reader(r, where, error)) for r in found
            ]
    results = RatingResults(name, settings, ratings, generalisation)
    results.save(out)
    journal.remove()
    if prompts is not None:
        tell(dry_run_note(prompts, rater.client))
    return results


def _generalisation_split(request: ExpectationEvaluation, split, test_trials) -> list[dict] | None:
    """One generalisation split's ratings: a model trained on its training types, tested on its test types
    (None when the set has no trials of either)."""
    from marple_agents.device import resolve_device

    test = [t for t in test_trials if t.key.type in split.test]
    if not test:
        return None
    config = tomnet_config(request.model_args)
    model = train_rater(request.data, config, resolve_device(request.device), False, split.train)
    return [rate_trial(model, t, request.seed).to_dict() for t in test]
