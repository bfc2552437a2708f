"""Words under the pictures: sounds in plain words, and an env's caption strip."""

from __future__ import annotations

from typing import TYPE_CHECKING

from marple_gym.evidence.audio import AUDIO, audio_token
from marple_gym.evidence.language import word
from marple_gym.world.assets import ASSETS

if TYPE_CHECKING:
    from marple_gym.envs.household import MarpleEnv


def describe_sound(token: int) -> str:
    """A sound token in words: ``toggle_on_laundry`` -> "toggle on laundry"."""
    name = AUDIO.tokens[int(token)]
    if name == "silence":
        return "(silence)"
    if name == "footstep":
        return "footsteps"
    return name.replace("electric_refrigerator", "fridge").replace("_", " ")


def env_caption(env: MarpleEnv) -> list[str]:
    """What a person watching an env wants to read: mission, intent, last sound, step and hands."""
    world = env.world
    sound = audio_token(env.last_outcome, world.house, world.state)
    held = [word(ASSETS.object_names[world.house.obj_type[o]]) for o in world.state.carrying[0].tolist() if o >= 0]
    return [
        f"Mission: {env.mission.title}",
        f"Intent: {env.current_intent()}",
        f"Step {env.step_count}    Sound: {describe_sound(sound)}    Holding: {', '.join(held) or 'nothing'}",
    ]
