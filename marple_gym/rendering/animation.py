"""Writing frames as an animation: GIF with Pillow, MP4 with whatever installed library can.

MP4 needs an H.264 encoder, which neither numpy nor Pillow has. We use the first
of imageio (with its ffmpeg plugin), OpenCV or PyAV that is installed, and
otherwise say plainly what to install; GIF always works.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path

import numpy as np
from PIL import Image

from marple_gym.errors import MarpleError

log = logging.getLogger(__name__)

FORMATS = (".gif", ".mp4")


class AnimationError(MarpleError):
    """An animation could not be written (unknown format, no MP4 encoder installed, no frames)."""


def check_path(path: str | Path) -> None:
    """Raise :class:`AnimationError` now if ``path`` cannot be written later (format, MP4 encoder)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise AnimationError(f"{path}: cannot write {suffix or 'a file without suffix'}; use .gif or .mp4")
    if suffix == ".mp4":
        _mp4_writer()


def save_animation(frames: Iterable[np.ndarray], path: str | Path, fps: float = 4.0) -> Path:
    """Write RGB uint8 frames (all one size) to ``path``: ``.gif`` or ``.mp4`` by its suffix."""
    path = Path(path)
    check_path(path)
    if fps <= 0:
        raise AnimationError(f"fps must be positive, got {fps}")
    writer = _write_gif if path.suffix.lower() == ".gif" else _mp4_writer()
    frames = list(frames)
    if not frames:
        raise AnimationError(f"{path}: no frames to write")
    if any(f.shape != frames[0].shape for f in frames):
        raise AnimationError(f"{path}: frames differ in size; an animation needs frames of one size")
    path.parent.mkdir(parents=True, exist_ok=True)
    writer(frames, path, fps)
    log.info("wrote %d frames to %s", len(frames), path)
    return path


def mp4_available() -> bool:
    """Whether an installed library can encode MP4."""
    try:
        _mp4_writer()
    except AnimationError:
        return False
    return True


def _write_gif(frames: list[np.ndarray], path: Path, fps: float) -> None:
    # One palette for all frames keeps colours steady (a palette per frame flickers); it is
    # taken from a few frames spread over the episode so late changes (a TV turned on) are in it.
    sample = np.concatenate(frames[:: max(1, len(frames) // 8)], axis=0)
    palette = Image.fromarray(sample).quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    images = [Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=int(round(1000 / fps)),
        loop=0,
        optimize=False,
        disposal=1,
    )


def _mp4_writer():
    if importlib.util.find_spec("imageio") and importlib.util.find_spec("imageio_ffmpeg"):
        return _write_imageio
    if importlib.util.find_spec("cv2"):
        return _write_cv2
    if importlib.util.find_spec("av"):
        return _write_av
    raise AnimationError(
        "MP4 needs a video encoder and none is installed: pip install imageio[ffmpeg] "
        "(or opencv-python, or av), or write a .gif instead"
    )


def _even(frame: np.ndarray) -> np.ndarray:
    """H.264 needs even sides: pad by one pixel where needed."""
    h, w = frame.shape[:2]
    return np.pad(frame, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")


def _write_imageio(frames: list[np.ndarray], path: Path, fps: float) -> None:
    import imageio.v2 as imageio  # whichever MP4 encoder is installed (see module docs)

    with imageio.get_writer(path, fps=fps, codec="libx264", macro_block_size=1) as writer:
        for frame in frames:
            writer.append_data(_even(frame))


def _write_cv2(frames: list[np.ndarray], path: Path, fps: float) -> None:
    import cv2  # whichever MP4 encoder is installed

    h, w = _even(frames[0]).shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    try:
        for frame in frames:
            writer.write(cv2.cvtColor(_even(frame), cv2.COLOR_RGB2BGR))
    finally:
        writer.release()


def _write_av(frames: list[np.ndarray], path: Path, fps: float) -> None:
    import av  # whichever MP4 encoder is installed

    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1000))
        h, w = _even(frames[0]).shape[:2]
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(_even(frame), format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
