"""The web study: a self-contained static folder that runs whodunit trials in a participant's browser.

``marple study-web`` calls :func:`build_web_study`. The folder holds::

    index.html              the page (open it, or serve the folder)
    study-data.js           the sessions: per sequence its seed and trial order; per trial as shown its steps'
                            captions, question and evidence points; the consent and instruction pages filled
                            in from their editable templates
    app/                    the study's own script (a jsPsych plugin) and style
    vendor/                 jsPsych, pinned, with its licence (shipped with marple-gym, see vendor/VENDOR.json)
    frames/v<n>/L<t>.png, R<t>.png      both houses at every step 0..T, per trial as shown
    sounds/L<id>.wav, R<id>.wav         the sounds of the audio modality, left and right channel

The trials are the ones ``marple evaluate`` scores for the same dataset,
scenarios and limit (:func:`~marple_gym.datasets.selection.select_trials`);
order and sides come from the seed exactly as in the desktop study
(:func:`~marple.study.trials.trial_order`, :func:`~marple.study.trials.culprit_sides`),
so one seed gives one trial sequence on both. With several orders, sequence k
is the desktop session of seed + k, and the participant id picks one
(:func:`sequence_for`), so participants do not all see the trials in one order. The folder does not say on which
side the culprit is: the answers carry the seed, and scoring recomputes the
sides from it.

The page writes the desktop study's JSON Lines (:mod:`~marple.study.responses`)
with ``"source": "web"``: offered as a download at the end, and posted answer by
answer to ``post_url`` when one is given (``marple study-server``).
"""

from __future__ import annotations

import contextlib
import html
import json
import logging
import math
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import soundfile
from PIL import Image

from marple.study.app import evidence_words, full_question, instructions, practice_note
from marple.study.responses import MODALITIES
from marple.study.trials import (
    StudyError,
    StudyTrial,
    culprit_sides,
    fresh_seed,
    load_episodes,
    make_trials,
    practice_episodes,
    practice_trials,
    trial_order,
    who_it_was,
)
from marple.viewers.replays import PANEL_COLORS, TrajectoryView
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.selection import trial_set_id
from marple_gym.rendering.captions import describe_sound
from marple_gym.sound.bank import SoundBank
from marple_gym.validation import Fields, message_error, parse_json

log = logging.getLogger(__name__)

WEB_FORMAT = "marple-web-study"
WEB_VERSION = 2  # 2: practice trials, attention checks, return codes, a write key; no dataset path
DATA_FILE = "study-data.js"
_DATA_PREFIX = "window.MARPLE_STUDY = "
_CHECK_STREAM = 3  # the seed's stream for the attention checks' sides (trials.py uses 0-2)


PROLIFIC_RETURN = "https://app.prolific.com/submissions/complete?cc={code}"
"""Where a Prolific participant goes back with a code (completion or no consent)."""
SECONDS_PER_STEP = 1.0
SECONDS_PER_ANSWER = 6.0
SECONDS_PER_CHECK = 8.0
SECONDS_OF_PAGES = 120.0
"""The time estimate's assumptions (:func:`estimate_minutes`): a step watched, a slider answer, an attention
check, and the consent, instruction and end pages together. Replace them with a pilot's figures via --minutes."""


@dataclass(frozen=True)
class WebStudyOptions:
    """What a built study shows and where its answers go."""

    modality: str = "vision"
    tile_size: int = 24
    post_url: str | None = None  # where the page posts each answer (e.g. "answers" on `marple study-server`)
    completion_url: str | None = None  # where the end page sends the participant ({code}: the completion code)
    completion_code: str | None = None  # the platform's completion code, shown at the end
    no_consent_url: str | None = None  # where a participant who does not consent is sent ({code} as above)
    no_consent_code: str | None = None  # the platform's code for "did not consent"
    consent: Path | None = None  # consent page template (default: the shipped one)
    instructions: Path | None = None  # instruction page template (default: the shipped one)
    contact: str | None = None  # who participants may ask about the study, shown on the consent page
    practice: int = 1  # practice trials before the scored ones (not scored)
    attention_checks: int = 0  # instructed slider answers between scored trials (not scored, reported)
    minutes: int | None = None  # the time the consent page states (default: estimated, see estimate_minutes)

    def __post_init__(self) -> None:
        if self.modality not in MODALITIES:
            raise StudyError(f"modality must be one of {MODALITIES}, got {self.modality!r}")
        if self.tile_size < 8:
            raise StudyError(f"the tile size must be at least 8 pixels, got {self.tile_size}")
        for page in (self.consent, self.instructions):
            if page is not None and not Path(page).is_file():
                raise StudyError(f"template {page} does not exist")
        for name in ("completion_code", "no_consent_code"):
            code = getattr(self, name)
            if code is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", code):
                raise StudyError(f"{name.replace('_', ' ')} {code!r}: use 1-64 letters, digits, - or _")
        for name in ("completion_url", "no_consent_url"):
            url = getattr(self, name)
            if url is not None and urlsplit(url).scheme not in ("http", "https"):
                raise StudyError(f"{name.replace('_', ' ')} {url!r}: expected an http:// or https:// address")
        if min(self.practice, self.attention_checks) < 0 or (self.minutes is not None and self.minutes < 1):
            raise StudyError("practice trials and attention checks must be >= 0, and the minutes >= 1")

    def return_to(self, which: str) -> dict[str, str] | None:
        """The ``code`` and ``url`` of the end page (``completion``) or of the decline page (``no_consent``):
        the URL given (``{code}`` filled in), else Prolific's with the code; None when neither is given."""
        code, url = getattr(self, f"{which}_code"), getattr(self, f"{which}_url")
        if url is None and code is None:
            return None
        url = (url or PROLIFIC_RETURN).replace("{code}", code or "")
        return {"code": code or "", "url": url}


@dataclass(frozen=True)
class BuiltStudy:
    """A web study folder :func:`build_web_study` wrote, and its seed (sequence k has seed ``seed + k``)."""

    folder: Path
    seed: int


def build_web_study(
    data: MarpleDataset,
    out: str | Path,
    seed: int | None,
    scenarios: Sequence[str] = (),
    limit: int | None = None,
    options: WebStudyOptions = WebStudyOptions(),
    progress: Callable[[int, int], None] | None = None,
    orders: int = 1,
) -> BuiltStudy:
    """Build the study folder ``out`` (which must not exist yet) from the dataset ``data``.

    ``orders`` sequences are built, sequence k with seed ``seed + k`` (order and sides as
    ``marple study --seed`` would give them; ``seed`` None: a fresh one, recorded in the folder and
    returned); each participant gets one (:func:`sequence_for`).
    Every sequence starts with the same ``options.practice`` practice trials (from houses no
    scored trial uses) and asks the same attention checks between its scored trials.
    The folder is built beside ``out`` and renamed into place at the end, so a failed build
    leaves nothing behind. ``progress(done, total)`` is called per trial view rendered.
    """
    seed = fresh_seed() if seed is None else seed
    out = Path(out)
    if out.exists():
        raise StudyError(f"{out} already exists; choose a new folder for the study")
    if orders < 1:
        raise StudyError(f"need at least one trial order, got {orders}")
    episodes = load_episodes(data, scenarios, limit)
    ids = [e.episode_id for e in episodes]
    # Sequence k is the desktop session of seed + k; a trial shown with the same side in several reuses its frames.
    shown: dict[tuple[str, str], tuple[str, StudyTrial]] = {}
    sequences = []
    for k in range(orders):
        trials = make_trials(episodes, trial_order(ids, seed + k), seed + k)
        for trial in trials:
            shown.setdefault((trial.episode_id, trial.culprit_shown_as), (f"v{len(shown):03d}", trial))
        sequences.append({"seed": seed + k, "views": [shown[(t.episode_id, t.culprit_shown_as)][0] for t in trials]})
    practice = practice_trials(practice_episodes(data, [e.scenario for e in episodes], options.practice), seed)
    checks = attention_checks(len(ids), options.attention_checks, seed)
    minutes = options.minutes or estimate_minutes([*practice, *trials], len(checks))
    pages = _pages(options, minutes, len(ids))  # template errors before any work
    with building(out) as work:
        copy_assets(work)
        sounds: set[int] = set()
        views = {}
        rendered = [*shown.values(), *((f"p{i:03d}", trial) for i, trial in enumerate(practice))]
        for done, (view, trial) in enumerate(rendered, 1):
            views[view] = _write_trial(work, view, trial, options, sounds)
            if progress:
                progress(done, len(rendered))
        if options.modality != "vision":
            _write_sounds(work, sounds)
        study = {
            **study_header(options, seed, data.root, ids, minutes, pages),
            "scenario": scenarios[0] if len(scenarios) == 1 else None,
            "modality": options.modality,
            "sequences": sequences,
            "practice": [{"view": f"p{i:03d}", "answer": who_it_was(t)} for i, t in enumerate(practice)],
            "checks": checks,
            "views": views,
        }
        write_study_data(work, study)
    log.info("web study with %d trials in %d orders (%d views) in %s", len(ids), orders, len(shown), out)
    return BuiltStudy(out, seed)


@contextlib.contextmanager
def building(out: Path) -> Iterator[Path]:
    """A work folder beside ``out``, renamed to ``out`` when the block ends and removed when it fails, so a
    failed build leaves nothing behind."""
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        yield work
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def study_header(
    options: WebStudyOptions, seed: int, source: Path, items: Sequence[str], minutes: int, pages: dict[str, str]
) -> dict[str, Any]:
    """What every study's description starts with: its format, seed, source (by name only: the folder is public),
    trial set, where answers go with their write key, the ways back to the platform, the time and the pages."""
    return {
        "format": WEB_FORMAT,
        "version": WEB_VERSION,
        "seed": int(seed),
        "dataset": source.resolve().name,
        "trial_set": trial_set_id(items),
        "post_url": options.post_url,
        "write_key": secrets.token_urlsafe(18) if options.post_url else None,
        "completion": options.return_to("completion"),
        "no_consent": options.return_to("no_consent"),
        "minutes": minutes,
        "pages": pages,
    }


def attention_checks(trials: int, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` attention checks spread evenly between the scored trials: after how many trials each comes,
    and the end of the slider it asks for ("A" or "B", balanced and seeded)."""
    sides = culprit_sides(count, seed, _CHECK_STREAM)
    return [{"after": max(1, round((j + 1) * trials / (count + 1))), "expected": sides[j]} for j in range(count)]


def estimate_minutes(trials: Sequence[StudyTrial], checks: int) -> int:
    """How long the study takes, rounded up to 5 minutes: each step watched, each distinct evidence step answered,
    each attention check and the pages around them at the rates above (``SECONDS_PER_...``)."""
    seconds = SECONDS_OF_PAGES + checks * SECONDS_PER_CHECK
    for trial in trials:
        seconds += trial.horizon * SECONDS_PER_STEP + len(set(trial.evidence_steps)) * SECONDS_PER_ANSWER
    return 5 * math.ceil(seconds / 300)


def sequence_for(participant: str, study: dict[str, Any]) -> int:
    """Which trial sequence a participant gets: FNV-1a of the id, modulo the number of sequences.

    The page computes the same (``app/study.js``), unless its URL names one with ``?order=k``.
    """
    h = 0x811C9DC5
    for byte in participant.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % len(study["sequences"])


def sequence_trials(study: dict[str, Any], k: int) -> list[dict[str, Any]]:
    """The trials of sequence ``k`` in order, as the page shows them."""
    return [{**study["views"][view], "index": i} for i, view in enumerate(study["sequences"][k]["views"])]


def write_study_data(folder: str | Path, study: dict[str, Any]) -> Path:
    """Write a study's description (what :func:`read_web_study` reads) into ``folder``."""
    path = Path(folder) / DATA_FILE
    path.write_text(_DATA_PREFIX + json.dumps(study, indent=1) + ";\n")
    return path


def read_web_study(folder: str | Path) -> dict[str, Any]:
    """The session description of a built study folder (what :func:`build_web_study` wrote)."""
    path = Path(folder) / DATA_FILE
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise StudyError(
            f"{folder} is not a web study folder (no {DATA_FILE}); build one with `marple study-web`"
        ) from None
    if not text.startswith(_DATA_PREFIX):
        raise StudyError(f"{path} was not written by `marple study-web`")
    error = message_error(StudyError)
    study = parse_json(text[len(_DATA_PREFIX) :].rstrip().rstrip(";"), str(path), error)
    study = Fields(study, "", error, str(path)).raw  # an object, whatever else a damaged file holds
    if study.get("format") != WEB_FORMAT or study.get("version") != WEB_VERSION:
        raise StudyError(
            f"{path}: a web study of format version {study.get('version')!r}, not {WEB_VERSION}; "
            "build it again with this version's `marple study-web`"
        )
    return study


# ---- building blocks ---------------------------------------------------------------------------------------


def _static() -> Any:
    return resources.files("marple.study").joinpath("webapp")


def copy_assets(work: Path) -> None:
    """The page, the study's script and style, and jsPsych."""
    static = _static()
    for folder in ("app", "vendor"):
        (work / folder).mkdir()
        for item in static.joinpath(folder).iterdir():
            if item.is_file():
                (work / folder / item.name).write_bytes(item.read_bytes())
    (work / "index.html").write_bytes(static.joinpath("index.html").read_bytes())


def _pages(options: WebStudyOptions, minutes: int, trials: int) -> dict[str, str]:
    """The consent and instruction pages (HTML) from their templates, placeholders filled in from the settings."""
    language = options.modality != "vision"
    checks = (
        "<li>Now and then a page asks you to move the slider to one end: this checks that the page has your "
        "attention. Please do as it says.</li>"
        if options.attention_checks
        else ""
    )
    fill = {
        "evidence": evidence_words(options.modality),
        "rules": "".join(f"<li>{line}</li>" for line in instructions(options.modality)[2:3]) + checks,
        "sound_hint": "" if not language else ", read and hear",
        "sound_note": "Please turn your sound on: you will hear both agents (Agent A left, Agent B right)."
        if language
        else "",
        "minutes": str(minutes),
        "trials": str(trials),
        "practice": practice_note(options.practice),
        "contact": contact_note(options),
    }
    return fill_pages(options, fill)


def contact_note(options: WebStudyOptions) -> str:
    """The consent page's line naming whom to ask (empty without ``options.contact``)."""
    return f"<p>Questions about this study: {html.escape(options.contact)}.</p>" if options.contact else ""


def fill_pages(options: WebStudyOptions, fill: dict[str, str], prefix: str = "") -> dict[str, str]:
    """The consent and instruction pages: the templates given in ``options``, else the shipped
    ``templates/<prefix>consent.html`` and ``<prefix>instructions.html``, with ``fill``'s placeholders filled in."""
    static = _static()
    pages = {}
    for page, given in (("consent", options.consent), ("instructions", options.instructions)):
        shipped = static.joinpath("templates", f"{prefix}{page}.html")
        text = Path(given).read_text() if given else shipped.read_text()
        try:
            pages[page] = Template(text).substitute(fill)
        except (KeyError, ValueError) as exc:
            raise StudyError(
                f"template {given or page}: unknown or malformed placeholder {exc} (write a literal $ as $$)"
            ) from None
    return pages


def _write_trial(
    work: Path, name: str, trial: StudyTrial, options: WebStudyOptions, sounds: set[int]
) -> dict[str, Any]:
    """Write both houses at every step of one trial as shown; return what the page needs to show it."""
    folder = work / "frames" / name
    folder.mkdir(parents=True)
    views = {
        side: TrajectoryView(tr, options.tile_size, color)
        for side, tr, color in (("L", trial.left, PANEL_COLORS[0]), ("R", trial.right, PANEL_COLORS[1]))
    }
    steps = range(trial.horizon + 1)
    for side, view in views.items():
        for t in steps:
            save_frame(view.frame(t), folder / f"{side}{t:03d}.png")
    described: dict[str, Any] = {
        "episode_id": trial.episode_id,
        "scenario": trial.episode.scenario,
        "horizon": int(trial.horizon),
        "evidence_steps": [int(t) for t in trial.evidence_steps],
        "question": full_question(trial.episode.question),
        "frames": f"frames/{name}/",
    }
    if options.modality != "vision":
        for side, view in views.items():
            tokens = [view.sound(t) for t in steps]
            sounds.update(tokens)
            described[side] = {
                "intents": [view.intent(t) for t in steps],
                "sounds": tokens,
                "sound_words": [describe_sound(s) for s in tokens],
            }
    return described


def save_frame(frame: np.ndarray, path: Path) -> None:
    """A PNG with a 256-colour palette: the tiles use far fewer colours, and the file is a third the size."""
    image = Image.fromarray(np.ascontiguousarray(frame))
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(path)


def _write_sounds(work: Path, tokens: set[int]) -> None:
    """Each token heard, as a stereo WAV with the clip on the left channel only and one on the right only."""
    bank = SoundBank()
    folder = work / "sounds"
    folder.mkdir()
    for token in sorted(t for t in tokens if t != 0):  # token 0 is silence: nothing to play
        clip = bank.clip(token)
        silent = np.zeros_like(clip)
        for side, channels in (("L", (clip, silent)), ("R", (silent, clip))):
            soundfile.write(folder / f"{side}{token}.wav", np.stack(channels, axis=1), bank.sample_rate)
