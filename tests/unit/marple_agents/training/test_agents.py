"""Learned agent models: shapes, masking, audio refinement, checkpoints, training, determinism."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from tiny_models import random_subgoal, random_vision, synthetic_samples, tiny_config, train_tiny  # noqa: E402

from marple_agents import AgentPolicy, CheckpointError, load_policy, refine_with_audio  # noqa: E402
from marple_agents.checkpoints import save_checkpoint  # noqa: E402
from marple_agents.config import ModelConfig, ModelConfigError, preset  # noqa: E402
from marple_agents.networks import SUBGOAL_SIZES, build_model, count_parameters  # noqa: E402
from marple_agents.networks.encoder import GridEncoder, sincos  # noqa: E402
from marple_agents.training.module import decoder_loss  # noqa: E402
from marple_agents.training.states import distinct_states, holdout_mask  # noqa: E402
from marple_gym.datasets import Samples  # noqa: E402
from marple_gym.evidence import AUDIO  # noqa: E402
from marple_gym.world.actions import Action  # noqa: E402

# ---- models: shapes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(7, 9), (20, 20), (12, 5)])
@pytest.mark.parametrize("conditioning", ["vision", "language"])
def test_policies_accept_any_grid_size_and_return_distributions(shape, conditioning):
    rng = np.random.default_rng(0)
    cfg = tiny_config(conditioning)
    torch.manual_seed(0)
    policy = AgentPolicy(build_model(cfg), cfg)
    vision = random_vision(rng, 5, *shape)
    subgoal = random_subgoal(rng, 5) if conditioning == "language" else None
    probs = policy.action_probs(vision, subgoal)
    assert probs.shape == (5, 10) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    heads = policy.subgoal_probs(vision)
    if conditioning == "vision":
        assert heads is None
    else:
        assert {k: v.shape for k, v in heads.items()} == {
            "action": (5, 10),
            "object": (5, 83),
            "furniture": (5, 25),
            "room": (5, 7),
        }
        for v in heads.values():
            np.testing.assert_allclose(v.sum(axis=1), 1.0, rtol=1e-5)


def test_batch_rows_are_independent():
    rng = np.random.default_rng(1)
    cfg = tiny_config()
    policy = AgentPolicy(build_model(cfg), cfg)
    vision = random_vision(rng, 6)
    together = policy.action_probs(vision)
    alone = np.concatenate([policy.action_probs(vision[i : i + 1]) for i in range(6)])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_language_policy_needs_valid_subgoal_codes_and_accepts_done():
    rng = np.random.default_rng(2)
    cfg = tiny_config("language")
    policy = AgentPolicy(build_model(cfg), cfg)
    vision = random_vision(rng, 2)
    with pytest.raises(ValueError, match="subgoal"):
        policy.action_probs(vision)
    with pytest.raises(ValueError, match="subgoal"):
        policy.action_probs(vision, np.array([[3, 83, 4, 2], [3, 1, 4, 2]]))  # object code 83 does not exist
    done = np.full((2, 4), -1)  # the intent says the mission is done
    assert policy.action_probs(vision, done).shape == (2, 10)


def test_vision_codes_out_of_range_are_rejected():
    cfg = tiny_config()
    policy = AgentPolicy(build_model(cfg), cfg)
    vision = random_vision(np.random.default_rng(3), 1)
    vision[0, 0, 0, 0] = 9  # room codes stop at 6
    with pytest.raises(ValueError, match="out of range"):
        policy.action_probs(vision)
    with pytest.raises(ValueError, match="vision must be"):
        policy.action_probs(vision[0])


def test_egocentric_embedding_puts_the_cell_ahead_at_one_step_ahead():
    enc = GridEncoder(16, 1, 1, 2, 2, "egocentric", 0.0)
    vision = torch.zeros(4, 5, 5, 8, dtype=torch.uint8)
    vision[:, 2, 2, 6] = 1  # the agent at x = 2, y = 2
    vision[:, 2, 2, 7] = torch.arange(1, 5, dtype=torch.uint8)  # facing east, south, west, north
    agent = enc.agent_cells(vision)
    assert agent.tolist() == [12] * 4
    rel = enc.relative(vision, agent, enc.agent_direction(vision, agent))
    ahead = [(2, 3), (3, 2), (2, 1), (1, 2)]  # (y, x) of the cell in front, per direction
    one_ahead = sincos(torch.tensor(1), torch.tensor(0), 16)
    for b, (y, x) in enumerate(ahead):
        torch.testing.assert_close(rel[b, y * 5 + x], one_ahead)


def test_egocentric_rows_summed_with_the_cells_equal_adding_them_after():
    """The encoder sums the egocentric offsets' rows in the cells' own gather-and-add pass: the same tokens, and
    the same gradient for the cell table, as gathering the offsets and adding them after."""
    torch.manual_seed(0)
    enc = GridEncoder(16, 1, 1, 2, 2, "egocentric", 0.0)
    vision = torch.from_numpy(random_vision(np.random.default_rng(0), 6))
    agent = enc.agent_cells(vision)
    direction = enc.agent_direction(vision, agent)
    fused = enc.cells(vision, enc.relative_rows(vision, agent, direction))
    (fused_grad,) = torch.autograd.grad(fused.square().sum(), enc.cells.table.weight)
    apart = enc.cells(vision) + enc.relative(vision, agent, direction)
    (apart_grad,) = torch.autograd.grad(apart.square().sum(), enc.cells.table.weight)
    torch.testing.assert_close(fused, apart)
    torch.testing.assert_close(fused_grad, apart_grad)


def test_glimpse_lays_out_the_cells_around_the_agent_in_its_own_frame():
    enc = GridEncoder(16, 1, 1, 2, 2, "egocentric", 0.0, glimpse=1)
    vision = torch.zeros(5, 5, 5, 8, dtype=torch.uint8)
    vision[:4, 2, 2, 6] = 1  # the agent at x = 2, y = 2 ...
    vision[:4, 2, 2, 7] = torch.arange(1, 5, dtype=torch.uint8)  # ... facing east, south, west, north
    index, valid = enc.glimpse_cells(enc.encode(vision))
    assert index.shape == (5, 9)
    # Glimpse order is row-major over (ahead, right) from (-1, -1): slot 7 is one ahead, slot 5 one to the right.
    ahead = [2 * 5 + 3, 3 * 5 + 2, 2 * 5 + 1, 1 * 5 + 2]  # flat index y * 5 + x of the cell in front
    right = [3 * 5 + 2, 2 * 5 + 1, 1 * 5 + 2, 2 * 5 + 3]  # east's right is south, south's is west, ...
    assert index[:4, 7].tolist() == ahead and index[:4, 5].tolist() == right
    assert index[:4, 4].tolist() == [12] * 4 and valid[:4].all()  # the agent's own cell in the middle
    assert not valid[4].any()  # no agent shown: nothing to see

    corner = torch.zeros(1, 5, 5, 8, dtype=torch.uint8)
    corner[0, 0, 0, 6], corner[0, 0, 0, 7] = 1, 4  # at (0, 0) facing north: ahead and left are off the grid
    _, valid = enc.glimpse_cells(enc.encode(corner))
    # rows: behind, level, ahead; columns: left, middle, right
    assert valid[0].view(3, 3).tolist() == [[False, True, True], [False, True, True], [False, False, False]]


def test_object_ids_do_not_change_the_prediction():
    rng = np.random.default_rng(4)
    cfg = tiny_config()
    policy = AgentPolicy(build_model(cfg), cfg)
    vision = random_vision(rng, 3)
    other = vision.copy()
    other[..., 5] = rng.integers(0, 256, size=other.shape[:3])
    np.testing.assert_allclose(policy.action_probs(vision), policy.action_probs(other), atol=1e-6)


def test_config_validation_and_presets():
    with pytest.raises(ModelConfigError):
        ModelConfig(width=30, heads=4)
    with pytest.raises(ModelConfigError):
        ModelConfig(depth=2, readout_depth=3)
    with pytest.raises(ModelConfigError):
        preset("huge")
    paper, train = preset("paper")
    assert (paper.depth, paper.width, paper.heads) == (15, 1024, 16)
    assert train.batch_size == 64 and train.max_epochs == 20


# ---- masking: decoder loss and audio --------------------------------------------------------------------------


def test_decoder_loss_ignores_rows_without_a_subgoal():
    logits = {f: torch.randn(3, n, requires_grad=True) for f, n in SUBGOAL_SIZES.items()}
    done = torch.full((3, 4), -1)
    loss = decoder_loss(logits, done)
    assert loss.item() == 0.0
    loss.backward()  # still differentiable
    mixed = torch.tensor([[-1, -1, -1, -1], [3, 5, 4, 2], [-1, -1, -1, -1]])
    expected = np.mean(
        [
            torch.nn.functional.cross_entropy(logits[f][1:2], mixed[1:2, i]).item()
            for i, f in enumerate(("action", "object", "furniture", "room"))
        ]
    )
    assert decoder_loss(logits, mixed).item() == pytest.approx(expected, rel=1e-5)


def test_audio_refinement_matches_a_hand_computed_posterior():
    probs = np.array([[0.1, 0.2, 0.3, 0.05, 0.05, 0.1, 0.05, 0.05, 0.05, 0.05]], dtype=np.float32)
    footstep = AUDIO.index["footstep"]  # made by left, right and forward only
    post = refine_with_audio(probs, np.array([footstep]))
    expected = np.zeros(10)
    expected[:3] = np.array([0.1, 0.2, 0.3]) / 0.6
    np.testing.assert_allclose(post[0], expected, rtol=1e-6)

    toggle = AUDIO.index["toggle_on_light"]  # only the toggle action makes it
    np.testing.assert_allclose(refine_with_audio(probs, [toggle])[0], np.eye(10)[Action.toggle], atol=1e-7)


def test_audio_refinement_falls_back_when_the_sound_rules_out_every_action():
    walker = np.eye(10, dtype=np.float32)[[Action.forward, Action.forward]]
    tokens = np.array([AUDIO.index["pickup_clothes"], AUDIO.index["footstep"]])
    post = refine_with_audio(walker, tokens)
    np.testing.assert_array_equal(post[0], walker[0])  # pickup sound, policy says forward: keep the policy
    np.testing.assert_array_equal(post[1], walker[1])
    with pytest.raises(ValueError):
        refine_with_audio(walker, np.array([len(AUDIO.tokens), 0]))


def test_audio_refinement_of_a_policy_batch():
    rng = np.random.default_rng(5)
    cfg = tiny_config()
    policy = AgentPolicy(build_model(cfg), cfg)
    probs = policy.action_probs(random_vision(rng, 4))
    tokens = np.array([AUDIO.index["footstep"]] * 4)
    post = refine_with_audio(probs, tokens)
    np.testing.assert_allclose(post[:, 3:], 0.0)
    np.testing.assert_allclose(post[:, :3], probs[:, :3] / probs[:, :3].sum(axis=1, keepdims=True), rtol=1e-5)


# ---- data: held-out houses and distinct states ---------------------------------------------------------------------


def test_validation_holds_out_whole_houses():
    samples = synthetic_samples(houses=5)
    held, _ = holdout_mask(samples, 0.2, seed=0)
    assert set(samples.house[held]).isdisjoint(samples.house[~held])
    assert len(set(samples.house[held])) == 1


def test_one_house_falls_back_to_held_out_episodes():
    samples = synthetic_samples(houses=1)
    held, by = holdout_mask(samples, 0.25, seed=0)
    assert by == "episodes"  # reported as what it really was, so `marple train` names it right
    assert 0 < held.sum() < len(held)
    assert set(samples.episode[held]).isdisjoint(samples.episode[~held])


def test_holding_out_episodes_keeps_every_house_in_training():
    samples = synthetic_samples(houses=3)
    held, _ = holdout_mask(samples, 0.25, seed=0, by="episodes")
    assert set(samples.house[~held]) == set(samples.house)
    assert set(samples.episode[held]).isdisjoint(samples.episode[~held])
    with pytest.raises(ValueError, match="holdout"):
        holdout_mask(samples, 0.25, seed=0, by="rooms")
    with pytest.raises(ModelConfigError, match="holdout"):
        preset("small", holdout="rooms")


def test_distinct_states_keep_counts_and_action_distributions():
    samples = synthetic_samples()
    doubled = Samples(*(np.concatenate([getattr(samples, f)] * 2) for f in samples.__dataclass_fields__))
    doubled.action[len(samples) :] = (doubled.action[len(samples) :] + 1) % 10  # the same input, another action
    table = distinct_states(doubled, with_subgoal=True)
    assert len(table) == len(samples) and table.samples == 2 * len(samples)
    np.testing.assert_allclose(table.targets.sum(axis=1), 1.0)
    assert set(np.unique(table.targets)) == {0.0, 0.5}


# ---- training, checkpoints, determinism --------------------------------------------------------------------------------


@pytest.mark.parametrize("conditioning", ["vision", "language"])
def test_a_tiny_model_learns_a_tiny_dataset(tmp_path, conditioning):
    result = train_tiny(tmp_path, conditioning)
    assert result.val_accuracy > 0.95  # held-out houses: the rule (action = direction) generalises
    assert result.checkpoint.is_file() and result.train_seconds > 0 and result.steps > 0
    assert (tmp_path / "metrics.json").is_file()


def test_checkpoint_round_trip(tmp_path):
    result = train_tiny(tmp_path, "language", epochs=2)
    policy = load_policy(result.checkpoint)
    assert policy.conditioning == "language" and policy.meta["val_accuracy"] == pytest.approx(result.val_accuracy)
    rng = np.random.default_rng(6)
    vision, subgoal = random_vision(rng, 4, 6, 6), random_subgoal(rng, 4)
    again = load_policy(result.checkpoint, device="cpu")
    np.testing.assert_array_equal(policy.action_probs(vision, subgoal), again.action_probs(vision, subgoal))
    payload = torch.load(result.checkpoint, weights_only=True)  # plain types and tensors only
    assert payload["format"] == "marple-policy" and isinstance(payload["config"], dict)


def test_bad_checkpoints_give_clear_errors(tmp_path):
    cfg = tiny_config()
    net = build_model(cfg)
    good = save_checkpoint(tmp_path / "good.pt", net, cfg)

    with pytest.raises(CheckpointError, match="no such"):
        load_policy(tmp_path / "missing.pt")
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CheckpointError, match="corrupt"):
        load_policy(corrupt)

    class Sneaky:  # an object that would run code when unpickled
        def __reduce__(self):
            return (print, ("pwned",))

    unsafe = tmp_path / "unsafe.pt"
    torch.save({"format": "marple-policy", "x": Sneaky()}, unsafe)
    with pytest.raises(CheckpointError, match="unsafe"):
        load_policy(unsafe)

    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(CheckpointError, match="not a MARPLE policy"):
        load_policy(other)

    payload = torch.load(good, weights_only=True)
    payload["config"]["width"] = 64  # the weights no longer fit the config
    torch.save(payload, tmp_path / "mismatch.pt")
    with pytest.raises(CheckpointError, match="do not match"):
        load_policy(tmp_path / "mismatch.pt")
    payload["config"]["flux_capacitor"] = True
    torch.save(payload, tmp_path / "future.pt")
    with pytest.raises(CheckpointError, match=r"future.pt: config.flux_capacitor: unknown key"):
        load_policy(tmp_path / "future.pt")
    payload["version"] = 99
    torch.save(payload, tmp_path / "newer.pt")
    with pytest.raises(CheckpointError, match="version"):
        load_policy(tmp_path / "newer.pt")


def test_training_is_deterministic_with_a_fixed_seed(tmp_path):
    a = train_tiny(tmp_path / "a", epochs=2, seed=3)
    b = train_tiny(tmp_path / "b", epochs=2, seed=3)
    c = train_tiny(tmp_path / "c", epochs=2, seed=4)
    wa, wb, wc = (torch.load(r.checkpoint, weights_only=True)["state_dict"] for r in (a, b, c))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)
    assert a.val_accuracy == b.val_accuracy


def test_presets_build_and_count_parameters():
    small, _ = preset("small", "language")
    assert count_parameters(build_model(small)) < 1_000_000
