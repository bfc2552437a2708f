"""Evidence modalities: vision array, scene graph, language and audio, and partial views of them."""

from marple_gym.evidence.audio import AUDIO, FOOTSTEP, SILENCE, AudioVocabulary, audio_token
from marple_gym.evidence.language import DONE_INTENT, MAX_TEXT_LENGTH, TEXT_CHARSET, intent, testimony
from marple_gym.evidence.scene_graph import SceneGraphBuilder, scene_graph
from marple_gym.evidence.visibility import Visibility, closed_containers
from marple_gym.evidence.vision import CHANNEL_NAMES, channel_sizes, describe_cell, vision

__all__ = [
    "AUDIO",
    "AudioVocabulary",
    "CHANNEL_NAMES",
    "DONE_INTENT",
    "FOOTSTEP",
    "MAX_TEXT_LENGTH",
    "SILENCE",
    "SceneGraphBuilder",
    "TEXT_CHARSET",
    "Visibility",
    "audio_token",
    "channel_sizes",
    "closed_containers",
    "describe_cell",
    "intent",
    "scene_graph",
    "testimony",
    "vision",
]
