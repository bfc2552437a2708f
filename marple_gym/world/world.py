"""A house and its current state: what the queries, planners and viewers read (episodes change it)."""

from __future__ import annotations

from marple_gym.world.house import House
from marple_gym.world.state import WorldState


class World:
    """A :class:`House` (shared, immutable) plus a :class:`WorldState` (owned).

    Copies share the house and copy the state, which is what Monte Carlo
    rollouts need: ``world.clone()`` costs a few small array copies. Actions
    change the state through an episode (:class:`marple_gym.episode.EpisodeState`).
    """

    __slots__ = ("house", "state")

    def __init__(self, house: House, state: WorldState) -> None:
        self.house = house
        self.state = state

    def clone(self) -> World:
        return World(self.house, self.state.copy())

    def get_state(self) -> WorldState:
        """A snapshot of the dynamic state, safe to keep."""
        return self.state.copy()

    def set_state(self, state: WorldState) -> None:
        """Restore a snapshot taken with :meth:`get_state` (the snapshot stays valid)."""
        self.state.copy_from(state)
