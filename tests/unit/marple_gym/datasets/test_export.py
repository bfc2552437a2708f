"""Episode export: GIF (and MP4 when an encoder is installed), side-by-side pairs, `marple replay`."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest
import soundfile
from PIL import Image

from marple.cli.main import main
from marple.viewers.replay_files import ReplayRequest, select_replay, write_replay
from marple.viewers.replays import trajectory_frames, whodunit_frames
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.rendering import animation
from marple_gym.rendering.animation import AnimationError, save_animation
from marple_gym.sound import SoundError


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(1, 2, 1, 1), seed=5, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


@pytest.fixture(scope="module")
def episode(data_dir):
    return next(iter(MarpleDataset(data_dir).whodunit("pillow")))


def frames(n: int, size: int = 16) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, 255, (size, size + 4, 3), dtype=np.uint8) for _ in range(n)]


def test_a_gif_holds_every_frame_at_the_requested_rate(tmp_path):
    path = save_animation(frames(5), tmp_path / "a.gif", fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == 5 and gif.size == (20, 16)
        assert gif.info["duration"] == 250


def test_bad_animations_are_refused_with_a_reason(tmp_path, monkeypatch):
    with pytest.raises(AnimationError, match="use .gif or .mp4"):
        save_animation(frames(2), tmp_path / "a.avi")
    with pytest.raises(AnimationError, match="differ in size"):
        save_animation(frames(1, 16) + frames(1, 18), tmp_path / "a.gif")
    with pytest.raises(AnimationError, match="no frames"):
        save_animation([], tmp_path / "a.gif")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a, **k: None)
    assert not animation.mp4_available()
    with pytest.raises(AnimationError, match="pip install imageio"):
        save_animation(frames(2), tmp_path / "a.mp4")


@pytest.mark.skipif(not animation.mp4_available(), reason="no MP4 encoder installed")
def test_mp4_is_written_when_an_encoder_is_installed(tmp_path):
    assert save_animation(frames(3, 17), tmp_path / "a.mp4").stat().st_size > 0


def test_whodunit_frames_show_both_agents_in_lockstep_up_to_the_horizon(episode):
    shown = list(whodunit_frames(episode, tile_size=8))
    assert len(shown) == episode.horizon + 1
    assert len({f.shape for f in shown}) == 1  # one size for the whole animation
    swapped = next(iter(whodunit_frames(episode, tile_size=8, swap=True)))
    assert swapped.shape == shown[0].shape and not np.array_equal(swapped, shown[0])
    plain = next(iter(whodunit_frames(episode, tile_size=8, language=False)))
    assert plain.shape[0] < shown[0].shape[0]  # no caption lines
    single = list(trajectory_frames(episode.trajectories[1], tile_size=8))
    assert len(single) == episode.trajectories[1].length + 1 and len({f.shape for f in single}) == 1


def test_marple_replay_writes_a_pair_gif_and_a_stereo_soundtrack(data_dir, episode, tmp_path, capsys):
    gif, wav = tmp_path / "pair.gif", tmp_path / "pair.wav"
    args = ["replay", "--data", str(data_dir), "--episode", episode.episode_id, "--tile-size", "8", "--fps", "4"]
    assert main(args + ["--out", str(gif), "--audio", str(wav)]) == 0
    with Image.open(gif) as image:
        assert image.n_frames == episode.horizon + 1
    sound, sr = soundfile.read(wav)
    assert sound.shape == (int(sr * 0.25) * (episode.horizon + 1), 2)  # one clip per step, Agent A left
    assert "wrote" in capsys.readouterr().out


def test_marple_replay_of_one_agent_and_of_a_fresh_planner_episode(data_dir, tmp_path):
    assert (
        main(
            [
                "replay",
                "--data",
                str(data_dir),
                "--agent",
                "B",
                "--no-captions",
                "--tile-size",
                "8",
                "--audio",
                str(tmp_path / "b.wav"),
            ]
        )
        == 0
    )
    assert soundfile.read(tmp_path / "b.wav")[0].ndim == 1
    assert (
        main(
            [
                "replay",
                "--mission",
                "get_snack",
                "--seed",
                "1",
                "--tile-size",
                "8",
                "--out",
                str(tmp_path / "snack.gif"),
            ]
        )
        == 0
    )
    assert (tmp_path / "snack.gif").stat().st_size > 0


def test_marple_replay_reports_user_errors_without_a_traceback(data_dir, tmp_path, capsys):
    assert main(["replay", "--data", str(data_dir)]) == 2
    assert "nothing to write" in capsys.readouterr().err
    assert (
        main(["replay", "--data", str(data_dir), "--episode", "pillow/h09/999", "--audio", str(tmp_path / "a.wav")])
        == 2
    )
    err = capsys.readouterr().err
    assert "no episode 'pillow/h09/999'; the nearest of its" in err and "pillow/h00/00" in err
    assert main(["replay", "--mission", "do_laundry", "--out", str(tmp_path / "a.webm")]) == 2
    assert ".gif or .mp4" in capsys.readouterr().err


def test_write_replay_says_each_file_as_it_is_written(data_dir, episode, tmp_path):
    gif, wav = tmp_path / "pair.gif", tmp_path / "pair.wav"
    request = ReplayRequest(data=data_dir, episode=episode.episode_id, out=(gif,), audio=wav, fps=4, tile_size=8)
    said = []
    assert write_replay(request, written=said.append) == [gif, wav]
    assert said == [f"wrote {gif}", f"wrote {wav} ({episode.horizon + 1} steps of 0.25 s)"]


def test_a_replays_tracks_are_one_token_a_step_per_agent_shown(data_dir, episode):
    steps = episode.horizon + 1
    pair = select_replay(ReplayRequest(data=data_dir, episode=episode.episode_id, tile_size=8))
    assert [len(track) for track in pair.tracks] == [steps, steps]  # the finished agent's track padded with silence
    swapped = select_replay(ReplayRequest(data=data_dir, episode=episode.episode_id, swap=True, tile_size=8))
    assert swapped.tracks == pair.tracks[::-1]
    one = select_replay(ReplayRequest(data=data_dir, episode=episode.episode_id, agent="B", tile_size=8))
    assert one.tracks == [episode.trajectories[1].audio.tolist()]
    assert len(list(one.frames())) == len(list(one.frames())) == episode.trajectories[1].length + 1  # afresh


@pytest.mark.parametrize(
    ("request_", "error", "words"),
    [
        (ReplayRequest(mission="get_snack"), ValueError, "nothing to write"),
        (ReplayRequest(mission="get_snack", audio="a.wav", fps=0), ValueError, "--fps must be positive"),
        (ReplayRequest(audio="a.wav"), ValueError, "give --data"),
        (ReplayRequest(mission="get_snack", audio="a.wav", agent="C"), ValueError, "agent must be one of"),
        (ReplayRequest(mission="get_snack", out=("a.gif", "b.webm")), AnimationError, "use .gif or .mp4"),
        (ReplayRequest(mission="get_snack", out=("a.gif",), audio="a.mp3"), SoundError, "name it *.wav"),
    ],
)
def test_a_replay_that_cannot_be_written_is_refused_before_any_work(request_, error, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=re.escape(words)):
        write_replay(request_, written=pytest.fail)
    assert list(tmp_path.iterdir()) == []
