"""The belief family in the application: a question set scored by a method (:func:`evaluate_beliefs`, what
``marple evaluate --family beliefs`` runs) and ``bip``'s policy trained on a set's training episodes
(:func:`train_policy`, ``marple train --family beliefs``).

Methods: ``uniform``, ``observer`` (the exact observer), ``llm`` (MMToM-QA's prompt; ``dry_run`` writes the
requests instead) from :mod:`marple_eval.beliefs`, and ``bip`` (a learned policy as the likelihood) from
:mod:`marple_agents.beliefs`, placed on the ``--device`` the model runner resolves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple.families.runs import check_method, dry_run_note, dry_run_requests, journaled, per_type, run_settings
from marple_eval.beliefs import BeliefMethod, BeliefResults, make_method, score
from marple_eval.beliefs.results import answer_record
from marple_gym.beliefs.questions import read_question_set
from marple_gym.beliefs.questions.sets import read_training_episodes
from marple_gym.datasets.shards import file_sha256
from marple_gym.errors import MarpleError

BELIEF_METHODS = ("uniform", "observer", "bip", "llm")
DEFAULT_DATA = "data/beliefs"
DEFAULT_POLICY = "runs/belief-policy"
"""Where ``marple train --family beliefs`` writes ``belief-policy.pt``, and where ``bip`` looks for it."""
POLICY_FILE = "belief-policy.pt"


@dataclass(frozen=True)
class BeliefEvaluation:
    """A method (one of :data:`BELIEF_METHODS`) scored on the test questions of the set in ``data``.

    ``policy``: bip's checkpoint (default: :data:`DEFAULT_POLICY`'s); ``model_args``: the method's options
    (llm: the client's and ``n``, ``temperature``, ``max_tokens``; bip and observer: ``exclusion``); ``limit``:
    at most this many questions of each type; ``out`` None: ``results/beliefs-<method>.json``."""

    method: str = "observer"
    data: str = DEFAULT_DATA
    policy: str | None = None
    model_args: dict[str, Any] = field(default_factory=dict)
    device: str = "auto"
    dry_run: bool = False
    limit: int | None = None
    out: str | None = None
    progress: bool = True

    @property
    def results_path(self) -> Path:
        return Path(self.out or f"results/beliefs-{self.method}.json")

    @property
    def policy_path(self) -> Path:
        return Path(self.policy or f"{DEFAULT_POLICY}/{POLICY_FILE}")


def build_method(request: BeliefEvaluation, prompts: Path | None = None) -> BeliefMethod:
    """The method a request names, built (bip: its policy loaded and placed); unknown names and missing
    policies are errors naming what to do."""
    check_method("belief", request.method, BELIEF_METHODS, request.dry_run)
    if request.method == "bip":
        from marple_agents.beliefs import BipMethod
        from marple_agents.device import resolve_device

        path = request.policy_path
        if not path.is_file():
            raise MarpleError(
                f"{path}: no belief policy here; train one with `marple train --family beliefs --data "
                f"{request.data} --out {path.parent}` (or name one with --checkpoint)"
            )
        return BipMethod(path, device=str(resolve_device(request.device)), **request.model_args)
    options = dict(request.model_args)
    if prompts is not None:
        options["dry_run"] = str(prompts)
    return make_method(request.method, **options)


def evaluate_beliefs(request: BeliefEvaluation, tell: Callable[[str], None] = lambda note: None) -> BeliefResults:
    """Score the request's method on its set's test questions and save the results (resumable: see
    :func:`marple.families.runs.journaled`); a dry run writes the requests beside them and says so."""
    questions = per_type(read_question_set(request.data, "test"), request.limit, lambda q: q.type)
    if not questions:
        raise ValueError(f"{request.data}: the set's test split has no questions")
    out = request.results_path
    prompts = dry_run_requests(out, request.dry_run)
    method = build_method(request, prompts)
    name = f"{request.method} (dry run)" if request.dry_run else request.method
    settings = {**method.settings(), **run_settings(request.method, request.data, request.limit, request.dry_run)}
    if request.method == "bip":
        settings["policy"] = str(request.policy_path)
        settings["policy_sha256"] = file_sha256(request.policy_path)
    header = {"family": "beliefs", "method": name, "settings": settings}
    records, journal = journaled(
        questions,
        lambda q: q.id,
        lambda q: answer_record(q, method.answer(q)),
        out,
        header,
        progress=request.progress,
        desc=f"answering ({name})",
    )
    answers = [tuple(r["p"]) for r in records]
    results = BeliefResults(name, settings, records, score(questions, answers))
    results.save(out)
    journal.remove()
    if prompts is not None:
        tell(dry_run_note(prompts, method.client))
    return results


def train_policy(
    data: str,
    out: str | None = None,
    *,
    max_steps: int = 1500,
    seed: int = 0,
    preset: str = "small",
    accelerator: str = "cpu",
    progress: bool = True,
):
    """Train bip's belief policy on the training episodes of the set in ``data`` and write
    ``out/belief-policy.pt`` (default :data:`DEFAULT_POLICY`); returns the training result."""
    from marple_agents.beliefs import train_belief_policy

    episodes = read_training_episodes(data)
    if not episodes:
        raise ValueError(f"{data}: the set has no training episodes (generate it with --train-episodes > 0)")
    return train_belief_policy(
        episodes, out or DEFAULT_POLICY, max_steps=max_steps, seed=seed, preset=preset,
        accelerator=accelerator, progress=progress,
    )  # fmt: skip
