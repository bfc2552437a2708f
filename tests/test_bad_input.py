"""Every bad input is a named error, nothing is corrupted, and nothing is left behind (issue 12).

Each test asserts the error class, that the message names the field, file or
option, and that nothing was written or changed.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from marple.study.responses import read_entries
from marple.study.trials import StudyError
from marple_gym.datasets import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import MANIFEST, DatasetError
from marple_gym.datasets.shards import ShardError, read_shard
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit
from marple_gym.errors import MarpleError
from marple_gym.generation import HouseConfig, HouseConfigError, generate_world
from marple_gym.validation import Fields, message_error

REFERENCE = Path(__file__).parent / "data" / "reference-configs" / "init_config_change_outfit_do_laundry.json"


def reference() -> dict:
    return json.loads(REFERENCE.read_text())


def listing(root: Path) -> set[str]:
    """Every path under ``root``: what a failed command must not have added to."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("bad-input") / "data"
    spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 2, 2, 2), seed=1, shard_size=2)
    generate_dataset(spec, root, workers=1, progress=False)
    return root


def copy_dataset(dataset: Path, tmp_path: Path, edit=None) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(dataset, root)
    if edit is not None:
        manifest = json.loads((root / MANIFEST).read_text())
        replaced = edit(manifest)  # edits change the manifest in place, or return a list to write instead
        manifest = replaced if isinstance(replaced, list) else manifest
        (root / MANIFEST).write_text(json.dumps(manifest))
    return root


# ---- house configs ------------------------------------------------------------------------------------------


def rename(block: dict, old: str, new: str) -> None:
    block[new] = block.pop(old)


@pytest.mark.parametrize(
    "edit, field, suggestion",
    [
        (
            lambda g: rename(g["rooms"]["initial"][1], "furnitures", "furniture"),
            "Grid.rooms.initial[1].furniture",
            "furnitures",
        ),
        (
            lambda g: rename(g["rooms"]["initial"][1]["furnitures"]["initial"][1], "objs", "obj"),
            "Grid.rooms.initial[1].furnitures.initial[1].obj",
            "objs",
        ),
        (
            lambda g: rename(g["rooms"]["initial"][1]["furnitures"]["initial"][0], "state", "states"),
            "Grid.rooms.initial[1].furnitures.initial[0].states",
            "state",
        ),
        (lambda g: rename(g["rooms"], "initial", "inital"), "Grid.rooms.inital", "initial"),
        (lambda g: rename(g, "agents", "agent"), "Grid.agent", "agents"),
        (lambda g: rename(g, "width", "widht"), "Grid.widht", "width"),
        (lambda g: rename(g["auto"], "min_room_dim", "min_room_dims"), "Grid.auto.min_room_dims", "min_room_dim"),
        (
            lambda g: rename(g["agents"]["initial"][0], "mission_preference_initial", "mission_preference_inital"),
            "Grid.agents.initial[0].mission_preference_inital",
            "mission_preference_initial",
        ),
    ],
)
def test_a_misspelled_key_of_the_paper_format_is_refused_with_its_path(edit, field, suggestion, tmp_path):
    data = reference()
    edit(data["Grid"])
    path = tmp_path / "house.json"
    path.write_text(json.dumps(data))
    with pytest.raises(HouseConfigError) as info:
        HouseConfig.load(path)
    assert info.value.field == field and info.value.file == str(path)
    assert str(info.value) == f"{path}: {field}: unknown key; did you mean {suggestion!r}?"


def test_a_misspelled_nested_key_of_our_format_is_refused():
    plain = generate_world(reference(), np.random.default_rng(0), ["do_laundry"]).house.source["config"].to_dict()
    rename(plain["rooms"][1]["furniture"][0], "objects", "objets")
    with pytest.raises(HouseConfigError, match=r"did you mean 'objects'") as info:
        HouseConfig.from_dict(plain)
    assert info.value.field == "rooms[1].furniture[0].objets"


@pytest.mark.parametrize(
    "config, field, reason",
    [
        ({"width": 10**9}, "width", "expected an integer in [3, 128]"),
        ({"height": 2}, "height", "expected an integer in [3, 128]"),
        ({"furniture_per_room": "many"}, "furniture_per_room", "expected [low, high] integers"),
        ({"furniture_per_room": [3, 1]}, "furniture_per_room", "0 <= low <= high <= 255"),
        ({"objects_per_furniture": [0, 1000]}, "objects_per_furniture", "0 <= low <= high <= 255"),
        (
            {"agents": [{"mission_preferences": {"do_laundry": math.nan}}]},
            "agents[0].mission_preferences.do_laundry",
            "finite",
        ),
        (
            {"agents": [{"mission_preferences": {"do_laundry": math.inf}}]},
            "agents[0].mission_preferences.do_laundry",
            "finite",
        ),
        ({"doors": [{"pos": [5, 5], "open": "no"}]}, "doors[0].open", "expected true or false"),
        ({"doors": [{"open": True}]}, "doors[0].pos", "a door needs a position"),
        ({"room_split_dirs": ["diagonal"]}, "room_split_dirs[0]", "unknown split direction"),
        ({"num_rooms": 10**6}, "num_rooms", "expected an integer in [1, 81]"),
        # A null where the default is a value is refused, not read as that default.
        ({"width": None}, "width", "null is not a value here; leave the key out for the default 20"),
        ({"Grid": None}, "Grid", "null is not a value here"),
        ({"Grid": {"width": None}}, "Grid.width", "null is not a value here"),
        ({"furniture_per_room": None}, "furniture_per_room", "null is not a value here"),
        ({"agents": [{"name": None}]}, "agents[0].name", "null is not a value here"),
        (
            {"rooms": [{"type": "Kitchen", "floor_objects": [{"type": "apple", "state": {"cookable": "yes"}}]}]},
            "rooms[0].floor_objects[0].state.cookable",
            "expected true or false",
        ),
    ],
)
def test_bad_values_are_refused_before_anything_is_built(config, field, reason):
    with pytest.raises(HouseConfigError) as info:
        HouseConfig.from_dict(config)
    assert info.value.field == field and reason in info.value.reason


@pytest.mark.parametrize(
    "edit, field, reason",
    [
        (lambda g: g.__setitem__("auto", [1]), "Grid.auto", "expected a JSON object, got list"),
        (lambda g: g.__setitem__("auto", "x"), "Grid.auto", "expected a JSON object, got str"),
        (lambda g: g.__setitem__("rooms", 5), "Grid.rooms", "expected a JSON object, got int"),
        (lambda g: g.__setitem__("agents", "two"), "Grid.agents", "expected a JSON object, got str"),
        (lambda g: g.__setitem__("doors", True), "Grid.doors", "expected a JSON object, got bool"),
    ],
)
def test_a_paper_section_of_the_wrong_type_is_named_with_the_file(edit, field, reason, tmp_path):
    data = reference()
    edit(data["Grid"])
    path = _write(tmp_path / "house.json", data)
    with pytest.raises(HouseConfigError) as info:
        HouseConfig.load(path)
    assert info.value.field == field and reason in info.value.reason and str(info.value).startswith(f"{path}: ")


def test_a_paper_door_state_must_be_open_or_closed():
    data = reference()
    data["Grid"]["doors"]["initial"][0]["state"] = "no"
    with pytest.raises(HouseConfigError, match="expected 'open' or 'closed'") as info:
        HouseConfig.from_dict(data)
    assert info.value.field == "Grid.doors.initial[0].state"


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a text file"),
        (b'{"width": NaN}', "malformed JSON: NaN is not a JSON number"),
        (b"[1, 2]", "expected a JSON object, got list"),
        (b"", "malformed JSON"),
    ],
)
def test_a_bad_config_file_names_the_file(content, reason, tmp_path):
    path = tmp_path / "house.json"
    path.write_bytes(content)
    with pytest.raises(HouseConfigError, match=reason) as info:
        HouseConfig.load(path)
    assert str(info.value).startswith(f"{path}: ")


@pytest.mark.parametrize("path, reason", [("", "the path of the file is empty"), (".", ": a folder, not a file")])
def test_an_empty_path_or_a_folder_is_named_as_such(path, reason, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(HouseConfigError, match=reason):
        HouseConfig.load(path)
    assert listing(tmp_path) == set()


@pytest.mark.parametrize("source", [[1, 2], 42, 3.5, b"{}"])
def test_a_config_that_is_neither_a_path_nor_a_dict_is_refused(source):
    with pytest.raises(HouseConfigError, match=f"expected a path to a JSON file.*got {type(source).__name__}"):
        HouseConfig.load(source)


def test_object_ids_cannot_wrap_the_uint8_channel():
    config = {"width": 100, "height": 100, "furniture_per_room": [40, 40], "objects_per_furniture": [8, 8]}
    with pytest.raises(HouseConfigError, match=r"456 objects, but at most 255 fit") as info:
        generate_world(config, np.random.default_rng(0))
    assert info.value.field == "objects_per_furniture"


def test_listing_more_objects_than_ids_is_refused_before_generation():
    room = {"type": "Kitchen", "floor_objects": [{"type": "apple"}] * 20, "num_floor_objects": 150}
    with pytest.raises(HouseConfigError, match="300 objects are asked for; a house holds at most 255"):
        HouseConfig.from_dict({"rooms": [room, {**room, "type": "Bedroom"}]})


# ---- datasets -----------------------------------------------------------------------------------------------


def manifest_error(dataset: Path, tmp_path: Path, edit) -> DatasetError:
    root = copy_dataset(dataset, tmp_path, edit)
    with pytest.raises(DatasetError) as info:
        MarpleDataset(root)
    assert str(info.value).startswith(str(root / MANIFEST))
    return info.value


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda m: m.__setitem__("version", 99), "version: manifest version 99 is not supported"),
        (lambda m: m["shards"].pop(sorted(m["shards"])[0]), "complete: the manifest says the dataset is complete"),
        (lambda m: m["shards"][sorted(m["shards"])[0]].pop("sha256"), "sha256: missing"),
        (lambda m: m.pop("spec"), "spec: missing"),
        (lambda m: m.pop("shards"), "shards: missing"),
        (lambda m: [m], "expected a JSON object, got list"),
        (lambda m: m["spec"].__setitem__("units", "laundry"), "spec.units: expected a list"),
        (lambda m: m["spec"]["units"][0].pop("roles"), "spec.units[0].roles: missing"),
        (lambda m: m["spec"]["sizes"].__setitem__("train_ood", -1), "spec.sizes.train_ood: expected an integer"),
        (lambda m: m["spec"]["sizes"].__setitem__("test_housse", 1), "did you mean 'test_houses'"),
        (
            lambda m: m["spec"].__setitem__("config", {"width": 10**9}),
            "spec.config.width: expected an integer in [3, 128]",
        ),
        (lambda m: m["shards"].__setitem__("elsewhere.npz", m["shards"][sorted(m["shards"])[0]]), "not a shard of"),
        # The spec's sizes changed after generation: the shards' paths are the same, their contents are not.
        (
            lambda m: m["spec"]["sizes"].__setitem__("test_per_house", 1),
            "shards.laundry/test/A+B/shard-h00-00000.npz.episodes: 4, but the spec makes 2",
        ),
        (lambda m: m["spec"]["sizes"].__setitem__("train_per_house", 1), ".episodes: 2, but the spec makes 1"),
        (
            lambda m: m["shards"]["laundry/test/A+B/shard-h00-00000.npz"].__setitem__("split", "train-in"),
            "shard-h00-00000.npz.split: 'train-in', but the spec makes 'test'",
        ),
        # The seed changed after generation: every count still fits, but not the spec the shards were made from.
        (lambda m: m["spec"].__setitem__("seed", 7), "spec: differs from the spec shard laundry/test/A+B/"),
    ],
)
def test_a_damaged_manifest_is_refused_naming_the_file_and_field(dataset, tmp_path, edit, message):
    assert message in str(manifest_error(dataset, tmp_path, edit))


def test_a_shard_of_another_split_re_signed_in_the_manifest_is_named(dataset, tmp_path):
    from marple_gym.datasets.shards import file_sha256

    test_shard = "laundry/test/A+B/shard-h00-00000.npz"
    train_shard = sorted(p for p in json.loads((dataset / MANIFEST).read_text())["shards"] if "/train-in/A/" in p)[0]
    root = copy_dataset(dataset, tmp_path)
    shutil.copyfile(root / train_shard, root / test_shard)
    manifest = json.loads((root / MANIFEST).read_text())
    manifest["shards"][test_shard]["sha256"] = file_sha256(root / test_shard)  # signed again: the checksum matches
    (root / MANIFEST).write_text(json.dumps(manifest))
    before = listing(root)
    with pytest.raises(ShardError) as info:
        list(MarpleDataset(root).whodunit("laundry"))
    assert str(info.value).startswith(f"{root / test_shard}: holds 2 train-in trajectories of unit 'laundry' role 'A'")
    assert "lists it as 4 test trajectories" in str(info.value) and listing(root) == before


SPEC_KEYS = [
    *(("spec", key) for key in ("units", "sizes", "seed", "config", "splits", "shard_size")),
    *(("spec", "units", 0, key) for key in ("name", "roles", "test_missions", "query_mission")),
    *(("spec", "sizes", key) for key in ("test_houses", "test_per_house", "train_per_house", "train_ood")),
]


@pytest.mark.parametrize("path", SPEC_KEYS, ids=[".".join(map(str, p)) for p in SPEC_KEYS])
def test_a_manifest_missing_any_spec_key_is_refused_naming_it_or_still_reads(dataset, tmp_path, path):
    def drop(manifest):
        node = manifest
        for step in path[:-1]:
            node = node[step]
        del node[path[-1]]

    root = copy_dataset(dataset, tmp_path, drop)
    try:
        data = MarpleDataset(root)
    except DatasetError as error:  # a KeyError or TypeError here was the bug
        where = ".".join(str(p) for p in path).replace(".0.", "[0].")
        # An optional key left out that changes the spec (the query mission) no longer matches the shards'.
        assert str(error).startswith((f"{root / MANIFEST}: {where}: missing", f"{root / MANIFEST}: spec: differs")), (
            error
        )
        return
    assert sum(1 for _ in data.trajectories("laundry", "test")) > 0


def test_an_incomplete_dataset_is_refused_unless_allowed(dataset, tmp_path, caplog):
    root = copy_dataset(
        dataset, tmp_path, lambda m: (m["shards"].pop(sorted(m["shards"])[-1]), m.update(complete=False))
    )
    data = MarpleDataset(root)
    assert not data.complete and len(data.missing_shards()) == 1
    with pytest.raises(DatasetError, match=r"incomplete \(1 of \d+ shards missing.*--allow-incomplete"):
        data.check_complete()
    data.check_complete(allow_incomplete=True)
    assert "--allow-incomplete" in caplog.text


def test_a_flipped_byte_in_a_shard_is_a_shard_error_naming_the_file(dataset, tmp_path):
    root = copy_dataset(dataset, tmp_path)
    path = sorted(root.rglob("*.npz"))[0]
    raw = bytearray(path.read_bytes())
    for offset in (len(raw) // 3, len(raw) // 2, 2 * len(raw) // 3):
        damaged = raw.copy()
        damaged[offset] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            read_shard(path)  # read without the manifest's checksum: the codec must still fail cleanly
        except ShardError as exc:
            assert str(exc).startswith(str(path))
    with pytest.raises(ShardError, match="checksum mismatch"):
        list(MarpleDataset(root).trajectories("laundry", "test"))


# ---- results files and study responses ------------------------------------------------------------------------


def results_document() -> dict:
    trial = {
        "episode_id": "laundry/h00/000",
        "scenario": "laundry",
        "horizon": 10,
        "taus": [0, 10],
        "p_culprit": [0.5, 0.75],
        "labelings": [{"swap": False, "p_a": [0.5, 0.75], "p_b": [0.5, 0.25]}],
    }
    return {"format": "marple-results", "version": 1, "method": "m", "settings": {}, "trials": [trial]}


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda d: d["trials"][0]["p_culprit"].__setitem__(0, math.nan),
            "trials[0].p_culprit[0]: expected a finite number",
        ),
        (
            lambda d: d["trials"][0]["p_culprit"].__setitem__(0, 1.5),
            "trials[0].p_culprit[0]: expected a number in [0.0, 1.0]",
        ),
        (lambda d: d["trials"][0]["p_culprit"].pop(), "trials[0].p_culprit: expected 2 values"),
        (lambda d: d["trials"][0].pop("horizon"), "trials[0].horizon: missing"),
        (lambda d: d["trials"][0].__setitem__("horizn", 3), "trials[0].horizn: unknown key; did you mean 'horizon'?"),
        (lambda d: d.__setitem__("trials", {}), "trials: expected a list"),
        (lambda d: d.__setitem__("settings", []), "settings: expected a JSON object"),
        (lambda d: d.__setitem__("version", 4), "version: results version 4 is not supported"),
        (lambda d: d.update(version=3, family="beliefs"), "family: results of beliefs, not of whodunit"),
        (lambda d: d.update(version=3, family="whodunit", role="oracle"), "role: "),
        (lambda d: d.update(version=3), "family: missing"),
    ],
)
def test_a_bad_results_file_names_the_file_and_field(edit, message, tmp_path):
    from marple_eval.results import ResultsError, RunResults

    data = results_document()
    RunResults.load(_write(tmp_path / "good.json", data))
    edit(data)
    path = _write(tmp_path / "bad.json", data)
    with pytest.raises(ResultsError) as info:
        RunResults.load(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value)


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


SESSION = {
    "type": "session",
    "participant": "p1",
    "seed": 1,
    "dataset": "d",
    "scenario": None,
    "modality": "vision",
    "trials": ["a"],
    "started": "now",
}
ANSWER = {
    "type": "answer",
    "participant": "p1",
    "episode_id": "a",
    "scenario": "laundry",
    "trial_index": 0,
    "culprit_shown_as": "A",
    "evidence_point": 0,
    "tau": 0,
    "horizon": 5,
    "slider": 40,
    "time": "now",
}


@pytest.mark.parametrize(
    "answer, message",
    [
        ({**ANSWER, "slider": 150}, "line 2.slider: expected a number in [0, 100]"),
        ({**ANSWER, "culprit_shown_as": "C"}, "line 2.culprit_shown_as: expected one of 'A', 'B'"),
        ({k: v for k, v in ANSWER.items() if k != "tau"}, "line 2.tau: missing"),
        ({**ANSWER, "slidr": 3}, "did you mean 'slider'"),
        ([1, 2], "line 2: expected a JSON object, got list"),
    ],
)
def test_a_bad_responses_line_names_the_file_and_line(answer, message, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(SESSION) + "\n" + json.dumps(answer) + "\n")
    before = path.read_bytes()
    with pytest.raises(StudyError) as info:
        read_entries(path, repair=True)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "answer, message",
    [
        ({**ANSWER, "slider": 10**400}, "line 2.slider: expected a number in [0, 100], got an integer of about 401"),
        ({**ANSWER, "rt_ms": 10**400}, "line 2.rt_ms: expected an integer in [0, 9007199254740991]"),
        ({**ANSWER, "tau": -(10**400)}, "line 2.tau: expected an integer in [0, 9007199254740991]"),
        ({**ANSWER, "trial_index": 2**60}, "line 2.trial_index: expected an integer in [0, 9007199254740991]"),
    ],
)
def test_evaluate_responses_names_the_line_of_an_out_of_range_number(answer, message, tmp_path, capsys):
    from marple.cli.main import main

    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(SESSION) + "\n" + json.dumps(answer) + "\n")
    out = tmp_path / "human.json"
    assert main(["evaluate", "--responses", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: {message}" in err and "internal error" not in err and not out.exists()


# ---- checkpoints ----------------------------------------------------------------------------------------------


@pytest.fixture
def checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    from marple_agents.checkpoints import save_checkpoint
    from marple_agents.config import ModelConfig
    from marple_agents.networks import build_model

    config = ModelConfig(width=8, depth=1, heads=2, head_hidden=8, decoder_hidden=8)
    path = save_checkpoint(tmp_path / "policy.pt", build_model(config), config, {"val_accuracy": 0.5})
    return torch, path


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p["config"].__setitem__("depth", 1e6), "config.depth: expected an integer, got 1000000.0"),
        (lambda p: p["config"].__setitem__("width", 2**20), "config.width: expected an integer in [8, 16384]"),
        (lambda p: p["config"].update(width=16384, depth=256), "parameters; the limit is"),
        (lambda p: p.__setitem__("meta", [1, 2]), "meta: expected a JSON object, got list"),
        (
            lambda p: p["state_dict"][sorted(p["state_dict"])[0]].view(-1).__setitem__(0, 7.0),
            "do not match their checksum",
        ),
        (lambda p: p.pop("weights_sha256"), "weights_sha256: missing"),
    ],
)
def test_a_bad_checkpoint_is_refused_before_the_network_is_built(checkpoint, edit, message):
    from marple_agents import CheckpointError, load_policy

    torch, path = checkpoint
    payload = torch.load(path, weights_only=True)
    edit(payload)
    torch.save(payload, path)
    with pytest.raises(CheckpointError) as info:
        load_policy(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value)


def test_nan_weights_are_refused_even_with_a_matching_checksum(checkpoint):
    from marple_agents import CheckpointError, load_policy
    from marple_agents.checkpoints import weights_sha256

    torch, path = checkpoint
    payload = torch.load(path, weights_only=True)
    name = sorted(k for k, v in payload["state_dict"].items() if v.is_floating_point())[0]
    payload["state_dict"][name].view(-1)[0] = math.nan
    payload["weights_sha256"] = weights_sha256(payload["state_dict"])
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match=rf"state_dict.{name}: weights are not finite"):
        load_policy(path)


def test_a_flipped_byte_anywhere_in_the_weights_file_is_refused(checkpoint):
    from marple_agents import CheckpointError, load_policy

    torch, path = checkpoint
    raw = path.read_bytes()
    refused = 0
    for offset in range(0, len(raw), max(1, len(raw) // 40)):
        damaged = bytearray(raw)
        damaged[offset] ^= 0x55
        path.write_bytes(bytes(damaged))
        try:
            load_policy(path)
        except CheckpointError as exc:
            assert str(exc).startswith(str(path))
            refused += 1
    assert refused > 0  # a flip in padding may go unnoticed; none escapes as another error


class Hostile:
    """A pickle that would run a command when loaded without ``weights_only``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize(
    "write, message",
    [
        (lambda torch, path, tmp: path.write_bytes(np.random.default_rng(0).bytes(4096)), "not a policy checkpoint"),
        (lambda torch, path, tmp: path.write_bytes(b""), "not a policy checkpoint"),
        (lambda torch, path, tmp: path.write_bytes(b"PK\x03\x04" + bytes(64)), "not a policy checkpoint"),
        (lambda torch, path, tmp: torch.save({"evil": Hostile(tmp / "ran")}, path), "refused without loading it"),
        (lambda torch, path, tmp: _with(torch, path, version=True), "version: checkpoint version True"),
        (lambda torch, path, tmp: _with(torch, path, version=2.0), "version: checkpoint version 2.0"),
        (lambda torch, path, tmp: _with(torch, path, version="2"), "version: checkpoint version '2'"),
        (lambda torch, path, tmp: _with(torch, path, version=3), "version: checkpoint version 3; this version of "),
        (lambda torch, path, tmp: _with(torch, path, version=1), "version: checkpoint version 1 with a weights check"),
    ],
)
def test_a_file_that_is_not_our_checkpoint_gets_a_sentence_of_ours_naming_it(checkpoint, tmp_path, write, message):
    from marple_agents import CheckpointError, load_policy

    torch, path = checkpoint
    write(torch, path, tmp_path)
    with pytest.raises(CheckpointError) as info:
        load_policy(path)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text
    assert "torch.load" not in text and "documentation" not in text  # our words, not torch's advice
    assert not (tmp_path / "ran").exists()  # the hostile pickle never ran


def _with(torch, path: Path, **change) -> None:
    payload = torch.load(path, weights_only=True)
    torch.save({**payload, **change}, path)


def test_evaluate_names_the_agent_file_it_cannot_read_and_writes_nothing(checkpoint, dataset, tmp_path, capsys):
    from marple.cli.main import main

    _, good = checkpoint
    bad = tmp_path / "agent-B.pt"
    bad.write_bytes(np.random.default_rng(1).bytes(1000))
    out = tmp_path / "results" / "run.json"
    argv = ["evaluate", "--data", str(dataset), "--model", "simulation", "--out", str(out), "--no-progress"]
    before = listing(tmp_path)
    assert main([*argv, "--agent", f"A={good}", "--agent", f"B={bad}"]) == 2
    err = capsys.readouterr().err
    assert f"--agent B: {bad}: not a policy checkpoint" in err
    assert listing(tmp_path) == before  # no results, no journal


def _config(torch, path: Path, **change) -> None:
    payload = torch.load(path, weights_only=True)
    payload["config"].update(change)
    if "wdith" in change:
        del payload["config"]["width"]
    torch.save(payload, path)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda torch, path: _config(torch, path, wdith=8), "config.wdith: unknown key; did you mean 'width'?"),
        (lambda torch, path: _config(torch, path, depth="1"), "config.depth: expected an integer, got '1'"),
        (lambda torch, path: _config(torch, path, depth=0), "config.depth: expected an integer in [1, 256], got 0"),
        (lambda torch, path: _config(torch, path, width=16), "state_dict: weights do not match the model its config"),
        (lambda torch, path: _with(torch, path, version=1), "version: checkpoint version 1 with a weights checksum"),
        (lambda torch, path: _with(torch, path, version=3), "version: checkpoint version 3; this version of"),
    ],
)
def test_evaluate_names_the_checkpoint_file_of_every_error_with_its_template_expanded(
    checkpoint, dataset, tmp_path, capsys, edit, message
):
    from marple.cli.main import main

    torch, good = checkpoint
    bad = tmp_path / "laundry-A.pt"
    shutil.copy(good, bad)
    edit(torch, bad)
    out = tmp_path / "results" / "run.json"
    argv = ["evaluate", "--data", str(dataset), "--model", "simulation", "--out", str(out), "--no-progress"]
    assert main([*argv, "--agent", f"A={tmp_path}/{{scenario}}-A.pt", "--agent", f"B={good}"]) == 2
    assert f"--agent A: {bad}: {message}" in capsys.readouterr().err
    assert not out.exists()


# ---- the validator itself -------------------------------------------------------------------------------------


def test_fields_name_file_path_and_reason():
    f = Fields({"a": {"b": [1, "x"]}}, "", message_error(MarpleError), "f.json")
    inner = f.fields("a").allow(["b"])
    with pytest.raises(MarpleError, match=r"^f.json: a.c: missing$"):
        inner.int("c")
    with pytest.raises(MarpleError, match=r"^f.json: a.b: at most 1 entries are allowed, got 2$"):
        inner.list("b", max_len=1)
    assert copy.deepcopy(inner.data) == {"b": [1, "x"]}
