"""A participant's session: its trials in order with sides, and its responses file (new or resumed).

``marple study`` (and ``--simulate``) open one with :func:`open_session`; a session may follow a built web
study's trial sequence (:func:`web_sequence`) so that desk and web participants see the same trials.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from marple.study.responses import ResponseLog
from marple.study.state import StudyState
from marple.study.trials import (
    StudyError,
    fresh_seed,
    load_episodes,
    make_trials,
    practice_episodes,
    practice_trials,
    trial_order,
)
from marple.study.web import read_web_study, sequence_for, sequence_trials
from marple_gym.datasets.dataset import MarpleDataset


@dataclass(frozen=True)
class SessionPlan:
    """What a session shows: its scenarios, trials per scenario, seed (None: a fresh one, recorded), modality and
    practice trials; ``trials`` is a web study's sequence of episode ids (None: drawn from the seed)."""

    scenarios: tuple[str, ...] = ()
    limit: int | None = None
    seed: int | None = None
    modality: str = "vision"
    practice: int = 1
    trials: tuple[str, ...] | None = None


def web_sequence(
    folder: str | Path, participant: str | None, plan: SessionPlan, data: str | Path | None
) -> SessionPlan:
    """``plan`` following one trial sequence of the built web study ``folder``: the one of ``plan.seed``, else
    the one the page gives ``participant``, with its scenarios, seed, modality, trials and practice count."""
    study = read_web_study(folder)
    seeds = [sequence["seed"] for sequence in study["sequences"]]
    if plan.seed is not None:
        if plan.seed not in seeds:
            raise StudyError(f"{folder} has trial sequences of seeds {seeds}, not {plan.seed}")
        k = seeds.index(plan.seed)
    else:  # the sequence the page gives this participant
        k = sequence_for(participant or "", study)
    trials = sequence_trials(study, k)
    if not data:  # the folder is public, so it names its dataset but does not say where it is
        raise StudyError(f"--data is required with --web: the dataset {study['dataset']!r} the study was built from")
    return replace(
        plan,
        scenarios=tuple(dict.fromkeys(t["scenario"] for t in trials)),
        seed=seeds[k],
        modality=study["modality"],
        limit=None,  # the sequence lists its trials itself
        trials=tuple(t["episode_id"] for t in trials),
        practice=len(study["practice"]),
    )


def open_session(
    data: str | Path | None,
    out: str | Path,
    participant: str | None,
    plan: SessionPlan = SessionPlan(),
    web: str | Path | None = None,
) -> StudyState:
    """The session's state on dataset ``data``, its answers written to ``out``, following the trial sequence of
    the web study ``web`` if given; resuming an existing file, the file's seed, trial order and practice trials
    win."""
    if web:
        plan = web_sequence(web, participant, plan, data)
    if not data:
        raise StudyError("--data is required (the dataset directory written by `marple generate`)")
    dataset = MarpleDataset(data)
    episodes = load_episodes(dataset, list(plan.scenarios), plan.limit)
    ids = [e.episode_id for e in episodes]
    out = Path(out)
    resuming = out.exists() and out.stat().st_size > 0
    seed = plan.seed
    if seed is None and not resuming:  # a fresh seed, recorded in the session line
        seed = fresh_seed()
    scenarios = [e.scenario for e in episodes]
    practice = practice_episodes(dataset, scenarios, plan.practice) if not resuming else []
    wanted = {
        "participant": participant,
        "seed": seed,
        "dataset": str(Path(data).resolve()),
        "scenario": plan.scenarios[0] if len(plan.scenarios) == 1 else None,
        "modality": plan.modality,
        "trials": None if seed is None else list(plan.trials or ()) or trial_order(ids, seed),
        "practice": [e.episode_id for e in practice],
    }
    log = ResponseLog.open(out, wanted)
    session = log.session
    if session["trials"] is None:
        raise StudyError(f"{out}: the session line lists no trials")
    recorded = session.get("practice") or []
    if resuming:  # the practice trials the file lists, drawn again
        practice = practice_episodes(dataset, scenarios, len(recorded))
    if [e.episode_id for e in practice] != recorded:
        raise StudyError(f"{out}: its practice trials {recorded} are not this dataset's; is it the same dataset?")
    return StudyState(
        make_trials(episodes, session["trials"], session["seed"]),
        log,
        practice=practice_trials(practice, session["seed"]),
    )
