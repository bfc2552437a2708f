"""Partial views: what an onlooker cannot see, taken out of the evidence.

One :class:`Visibility` says which cells of a house are hidden (an occluder in
front of the observer, everything outside an agent's view or room) and which
containers' contents are hidden (closed, not yet looked into). It applies the
same cut to every modality, so no modality leaks what another hides:

* the vision array (:meth:`Visibility.vision`): hidden cells read all zeros,
  as unseen cells of :mod:`marple_gym.evidence.egocentric` do (every real cell
  has a room type or a furniture code, so zeros mean "unseen"); a hidden
  container's cells keep the container and lose their object channels;
* the scene graph (:meth:`Visibility.scene_graph`): an object or agent appears
  only when its cell is seen (a held object with its holder), a room, door or
  piece of furniture when at least one of its cells is seen (part of a bed is
  enough to know the bed); objects in a hidden container do not appear;
* rendered frames: :func:`marple_gym.rendering.frames.render_grid` draws the
  hidden cells as an occluder.

Build one from a mask (:meth:`Visibility.hiding`), from an agent's egocentric
view (:meth:`Visibility.egocentric`) or room (:meth:`Visibility.room`), and
combine views with :meth:`Visibility.together` (hidden if hidden in either).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import networkx as nx
import numpy as np

from marple_gym.evidence.egocentric import view_cells
from marple_gym.world.assets import ASSETS, OPEN_BIT
from marple_gym.world.house import House
from marple_gym.world.state import CH_OBJ, CH_OBJ_ID, NUM_CHANNELS, WorldState

_OBJECT_CHANNELS = slice(CH_OBJ, CH_OBJ_ID + 1)
"""The object's type, state and id: consecutive channels."""


@dataclass(frozen=True, eq=False)
class Visibility:
    """Hidden cells and hidden container contents of one house (see module docs).

    ``hidden`` is an (H, W) bool mask, True where a cell cannot be seen;
    ``sealed`` holds the furniture indices of the containers whose contents
    cannot be seen (their outsides can, where their cells are not hidden).
    """

    house: House
    hidden: np.ndarray
    sealed: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        hidden = np.asarray(self.hidden, dtype=bool)
        shape = (self.house.height, self.house.width)
        if hidden.shape != shape:
            raise ValueError(f"hidden must be a {shape} mask over the house's cells, got shape {hidden.shape}")
        hidden = hidden.copy()
        hidden.flags.writeable = False
        sealed = frozenset(int(i) for i in self.sealed)
        bad = [i for i in sealed if not 0 <= i < self.house.num_furniture]
        if bad:
            raise ValueError(f"sealed names furniture indices {sorted(bad)} outside 0..{self.house.num_furniture - 1}")
        object.__setattr__(self, "hidden", hidden)
        object.__setattr__(self, "sealed", sealed)

    # ---- building views -----------------------------------------------------------------------------------------
    @classmethod
    def everything(cls, house: House) -> Visibility:
        """The full view: nothing hidden."""
        return cls(house, np.zeros((house.height, house.width), dtype=bool))

    @classmethod
    def hiding(
        cls, house: House, cells: np.ndarray | Iterable[tuple[int, int]], sealed: Iterable[int] = ()
    ) -> Visibility:
        """A view hiding ``cells`` (an (H, W) bool mask, or (x, y) pairs) and the contents of ``sealed``."""
        if isinstance(cells, np.ndarray) and cells.dtype == bool:
            mask = cells
        else:
            mask = np.zeros((house.height, house.width), dtype=bool)
            for x, y in cells:
                if not (0 <= x < house.width and 0 <= y < house.height):
                    raise ValueError(f"cell ({x}, {y}) is outside the {house.width} x {house.height} house")
                mask[y, x] = True
        return cls(house, mask, frozenset(sealed))

    @classmethod
    def egocentric(
        cls, house: House, state: WorldState, agent: int = 0, view_size: int = 7, see_through_walls: bool = False
    ) -> Visibility:
        """What agent ``agent`` sees in its egocentric window (see :mod:`marple_gym.evidence.egocentric`)."""
        xs, ys, seen = view_cells(state, agent, view_size, see_through_walls)
        hidden = np.ones((house.height, house.width), dtype=bool)
        hidden[ys[seen], xs[seen]] = False
        return cls(house, hidden)

    @classmethod
    def room(cls, house: House, state: WorldState, agent: int = 0) -> Visibility:
        """What agent ``agent`` sees from where it stands: its room with the walls and doors around it.

        An agent in a doorway sees both rooms the door joins.
        """
        x, y = state.agent_pos[agent].tolist()
        rooms = {house.room_of_cell(x, y)} - {-1}
        if not rooms:  # in a doorway: the rooms on either side
            h, w = house.height, house.width
            near = [(x + dx, y + dy) for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1))]
            rooms = {house.room_of_cell(cx, cy) for cx, cy in near if 0 <= cx < w and 0 <= cy < h} - {-1}
        hidden = np.ones((house.height, house.width), dtype=bool)
        for r in rooms:
            (left, top), (w, h) = house.rooms[r].top, house.rooms[r].size
            hidden[max(top - 1, 0) : top + h + 1, max(left - 1, 0) : left + w + 1] = False
        return cls(house, hidden)

    def together(self, other: Visibility) -> Visibility:
        """A cell or container hidden in either view is hidden in the result."""
        if other.house is not self.house and other.house.fingerprint != self.house.fingerprint:
            raise ValueError("cannot combine views of two different houses")
        return Visibility(self.house, self.hidden | other.hidden, self.sealed | other.sealed)

    def sealing(self, containers: Iterable[int]) -> Visibility:
        """This view with the contents of ``containers`` (furniture indices) hidden as well."""
        return Visibility(self.house, self.hidden, self.sealed | frozenset(containers))

    # ---- what is seen -------------------------------------------------------------------------------------------
    @cached_property
    def seen(self) -> np.ndarray:
        """(H, W) bool: the cells that can be seen (the complement of ``hidden``)."""
        seen = ~self.hidden
        seen.flags.writeable = False
        return seen

    @cached_property
    def sealed_cells(self) -> np.ndarray:
        """(H, W) bool: the cells of the containers whose contents are hidden."""
        mask = np.zeros((self.house.height, self.house.width), dtype=bool)
        for i in self.sealed:
            ys, xs = self.house.fur_cells[i]
            mask[ys, xs] = True
        mask.flags.writeable = False
        return mask

    @property
    def hides_anything(self) -> bool:
        return bool(self.hidden.any()) or bool(self.sealed)

    @cached_property
    def kept(self) -> np.ndarray:
        """(H, W, 8) uint8: 1 for each channel of each cell that :meth:`vision` keeps, 0 for what it cuts (every
        channel of a hidden cell, the object channels of a sealed container's cells).

        A view is made once and cut many times (an agent's percepts are kept and met again as it walks), so
        the cut is worked out here once and applied as one multiplication.
        """
        kept = np.ones((*self.hidden.shape, NUM_CHANNELS), dtype=np.uint8)
        kept[self.sealed_cells, _OBJECT_CHANNELS] = 0
        kept[self.hidden] = 0
        kept.flags.writeable = False
        return kept

    # ---- cutting the evidence -----------------------------------------------------------------------------------
    def vision(self, grid: np.ndarray) -> np.ndarray:
        """A copy of a vision array (H, W, 8), or a stack of them (..., H, W, 8), with the hidden parts zeroed."""
        if grid.shape[-3:-1] != self.hidden.shape:
            raise ValueError(f"vision array of shape {grid.shape} does not fit a house of {self.hidden.shape} cells")
        return np.multiply(grid, self.kept, dtype=grid.dtype)

    def scene_graph(self, graph: nx.DiGraph) -> nx.DiGraph:
        """A copy of a scene graph of this house without the entities this view hides (see module docs)."""
        seen = self.seen
        height, width = seen.shape

        def cell_seen(pos: tuple[int, int] | None) -> bool:
            return pos is not None and 0 <= pos[0] < width and 0 <= pos[1] < height and bool(seen[pos[1], pos[0]])

        def area_seen(top: tuple[int, int], size: tuple[int, int]) -> bool:
            (x, y), (w, h) = top, size
            return bool(seen[y : y + h, x : x + w].any())

        gone = set()
        for name, attrs in graph.nodes(data=True):
            kind = attrs.get("kind")
            if kind == "room":
                visible = area_seen(attrs["top"], attrs["size"])
            elif kind == "furniture":
                visible = area_seen(attrs["pos"], attrs["size"])
            elif kind == "object":
                pos = attrs.get("pos")
                visible = pos is None or (cell_seen(pos) and not self.sealed_cells[pos[1], pos[0]])
            else:  # doors and agents: one cell each
                visible = cell_seen(attrs.get("pos"))
            if not visible:
                gone.add(name)
        for name, attrs in graph.nodes(data=True):  # a held object is seen with its holder, and only then
            if attrs.get("kind") == "object" and attrs.get("pos") is None:
                holders = [a for a, _ in graph.in_edges(name) if graph.nodes[a].get("kind") == "agent"]
                if not holders or all(a in gone for a in holders):
                    gone.add(name)
        out = graph.copy()
        out.remove_nodes_from(gone)
        return out


def closed_containers(house: House, state: WorldState) -> frozenset[int]:
    """The furniture indices of the openable containers that are closed in ``state`` (their contents unseen)."""
    gated = ASSETS.fur_gated[house.fur_type]
    closed = (state.fur_state & OPEN_BIT) == 0
    return frozenset(np.flatnonzero(gated & closed).tolist())
