"""The vision-language condition: frames sent as image parts of OpenAI-compatible chat messages.

A user message's ``content`` becomes a list of parts, the text first and then each frame as
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` (the form the OpenAI API, vLLM
and llama.cpp's server accept for vision models), each frame after a short caption saying which it is
("Frame 3 of 8, step 12:"), as MMToM-QA gave GPT-4V its eight frames in order. Frames are PNG files
(lossless: the grid's cells stay sharp), encoded inline, so a request needs no file server and its cache key
covers the pictures.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from marple_gym.rendering.frames import png_bytes

IMAGE_TOKENS = 255
"""A rough count of the prompt tokens one frame costs (a 320 x 320 picture: OpenAI's high detail counts 255);
only the dry run's estimate uses it."""


def data_url(frame: np.ndarray) -> str:
    """An RGB frame as a ``data:image/png;base64,...`` URL."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(frame)).decode("ascii")


def image_part(frame: np.ndarray) -> dict[str, Any]:
    """One frame as a chat message's image part."""
    return {"type": "image_url", "image_url": {"url": data_url(frame)}}


def text_part(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def captioned_frames(frames: Sequence[np.ndarray], captions: Sequence[str]) -> list[dict[str, Any]]:
    """Each frame as an image part after a text part with its caption."""
    if len(frames) != len(captions):
        raise ValueError(f"{len(frames)} frames but {len(captions)} captions")
    parts: list[dict[str, Any]] = []
    for frame, caption in zip(frames, captions):
        parts += [text_part(caption), image_part(frame)]
    return parts


def with_parts(chat: list[dict[str, Any]], parts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chat`` with ``parts`` added after the text of its last message (a user message)."""
    if not chat or chat[-1]["role"] != "user":
        raise ValueError("the frames go into the last message, which must be the user's")
    last = chat[-1]
    content = last["content"]
    text = [text_part(content)] if isinstance(content, str) else list(content)
    return [*chat[:-1], {**last, "content": text + list(parts)}]


def content_tokens(content: str | Sequence[dict[str, Any]], chars_per_token: float) -> int:
    """A rough count of one message's prompt tokens: its text at ``chars_per_token``, and
    :data:`IMAGE_TOKENS` a picture."""
    if isinstance(content, str):
        return math.ceil(len(content) / chars_per_token)
    return sum(
        IMAGE_TOKENS if part.get("type") == "image_url" else math.ceil(len(part.get("text", "")) / chars_per_token)
        for part in content
    )
