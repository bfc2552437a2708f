"""Atomic writes: a failed write loses nothing already written and leaves no temporary file behind."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest

from marple_gym.files import atomic_write, write_json_atomic


def test_json_write_replaces_the_file_whole(tmp_path):
    path = write_json_atomic(tmp_path / "sub" / "a.json", {"x": 1})
    write_json_atomic(path, {"x": 2})
    assert json.loads(path.read_text()) == {"x": 2}
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "a.npz"
    with atomic_write(path, "wb") as f:
        np.savez_compressed(f, a=np.arange(3))
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="disk full"), atomic_write(path, "wb") as f:
        f.write(b"half")
        raise RuntimeError("disk full")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.npz"]


def test_unserialisable_json_keeps_the_old_file(tmp_path):
    path = write_json_atomic(tmp_path / "a.json", {"x": 1})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"x": object()})
    assert json.loads(path.read_text()) == {"x": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_atomic_write_refuses_append_and_read_modes(tmp_path):
    with pytest.raises(ValueError, match="writes text"), atomic_write(tmp_path / "a", "a"):
        pass


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_a_written_file_has_the_permissions_the_umask_gives_any_new_file(tmp_path, umask):
    before = os.umask(umask)
    try:
        path = write_json_atomic(tmp_path / "a.json", {"x": 1})
        with atomic_write(tmp_path / "b.npz", "wb") as f:
            np.savez_compressed(f, a=np.arange(3))
    finally:
        os.umask(before)
    for written in (path, tmp_path / "b.npz"):
        assert stat.S_IMODE(written.stat().st_mode) == 0o666 & ~umask
