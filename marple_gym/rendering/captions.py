"""Words under the pictures: sounds in plain words, and an env's caption strip."""

from __future__ import annotations

from marple_gym.episode.observe import observe
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.audio import AUDIO
from marple_gym.evidence.language import word
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House


def describe_sound(token: int) -> str:
    """A sound token in words: ``toggle_on_laundry`` -> "toggle on laundry"."""
    name = AUDIO.tokens[int(token)]
    if name == "silence":
        return "(silence)"
    if name == "footstep":
        return "footsteps"
    return name.replace("electric_refrigerator", "fridge").replace("_", " ")


def episode_caption(house: House, episode: EpisodeState, agent: int = 0) -> list[str]:
    """What a person watching an episode wants to read: mission, intent, last sound, step and hands."""
    obs = observe(house, episode, agent, ("mission", "intent", "audio", "carrying"))
    held = [word(ASSETS.object_names[code]) for code in obs["carrying"].tolist() if code > 0]
    return [
        f"Mission: {obs['mission']}",
        f"Intent: {obs['intent']}",
        f"Step {episode.step_count}    Sound: {describe_sound(obs['audio'])}    Holding: {', '.join(held) or 'nothing'}",
    ]
