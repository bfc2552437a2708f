"""The worlds of a batch of rollouts, as agent models see them: :class:`RolloutWorlds`.

The ``m`` rollouts of an agent at each of its evidence points are rows of one batch of episodes
(:class:`~marple_gym.episode.EpisodeBatch`); agent models read the stacked states directly (a learned policy)
or through a :class:`~marple_gym.world.world.World` per row whose state is a view into the batch (the planner).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from marple_gym.episode.batch import EpisodeBatch
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.world import World


class RolloutWorlds(Sequence[World]):
    """The rollouts' worlds, views into one batch of episodes (``episodes``, its world ``batch``).

    ``groups[g]`` is the slice of rows that start from ``starts[g]``. A world
    (a view into the batch) is made when first asked for: a learned policy reads
    ``batch.grid`` and never needs one.
    """

    def __init__(self, starts: Sequence[World], rollouts: int) -> None:
        first = starts[0].house
        # The worlds at the evidence points of one agent share one layout; stack houses only if they do not.
        if all(w.house.fingerprint == first.fingerprint for w in starts):
            self.house: HouseBatch = HouseBatch.of(first)
        else:
            self.house = HouseBatch.of([w.house for w in starts for _ in range(rollouts)])
        self.episodes = EpisodeBatch.start(BatchedState.stack([w.state for w in starts], repeats=rollouts))
        self.batch = self.episodes.world
        self.groups = tuple(slice(g * rollouts, (g + 1) * rollouts) for g in range(len(starts)))
        self._worlds: dict[int, World] = {}

    def __len__(self) -> int:
        return len(self.batch)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        world = self._worlds.get(i)
        if world is None:
            world = self._worlds[i] = World(self.house.house(i), self.batch.view(i))
        return world

    def __iter__(self) -> Iterator[World]:
        return (self[i] for i in range(len(self)))
