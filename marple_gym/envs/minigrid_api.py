"""What MiniGrid's wrappers and tools read of an env, in MiniGrid's own meaning.

:class:`MiniGridAPI` gives :class:`~marple_gym.envs.household.MarpleEnv` and
:class:`~marple_gym.envs.search.SearchEnv` MiniGrid's agent attributes
(``agent_pos``, ``agent_dir``, ``front_pos``), its ``actions`` enum, ``get_frame`` (the RGB house, or the
picture of the agent's view), the object grid ``grid`` and the 3-channel view ``gen_obs_grid``, the last two
the house in MiniGrid's vocabulary (:mod:`marple_gym.envs.minigrid_grid`: walls, doors, floors coloured by
room, furniture as boxes, objects as balls, the current subgoal's targets as goals). So every wrapper of
``minigrid.wrappers`` works unchanged; docs/rl.md has the table of them on MARPLE envs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from marple_gym.errors import MarpleError
from marple_gym.evidence.egocentric import DIR_VEC, check_view_size
from marple_gym.evidence.visibility import Visibility
from marple_gym.world.actions import Action

if TYPE_CHECKING:  # MiniGrid is imported on first use (half a second); see marple_gym.envs.minigrid_grid
    from minigrid.core.grid import Grid

    from marple_gym.world.world import World


class NoMiniGridEquivalent(MarpleError, AttributeError):
    """A MiniGrid attribute that MARPLE envs do not have; the message says what to use instead.

    An ``AttributeError``, so ``hasattr`` is False for it, as for any env that is not MiniGrid's. Since the
    envs have MiniGrid's ``grid`` and ``gen_obs_grid`` no attribute that ``minigrid.wrappers`` reads raises
    it; it stays for code that catches it.
    """


class MiniGridAPI:
    """MiniGrid's env attributes for an env with ``config``, ``episode``, ``world``, ``agent_view_size`` and
    ``see_through_walls``, and ``progress`` (or its own :meth:`_goal_cells`).

    An env whose agent perceives less than its view shows (the searching agent of ``Marple-Search-v0``) says
    what it perceives in :meth:`_perceived`; the views, pictures and grids of the agent's sight follow it.
    """

    actions = Action
    """The action enum, as MiniGrid's ``env.actions`` (``left``, ``right``, ``forward`` share its values)."""
    highlight = True
    """Whether :meth:`get_frame` lightens the cells the agent sees by default (MiniGrid's ``env.highlight``)."""

    @property
    def width(self) -> int:
        """The house's width in cells."""
        return self.config.width

    @property
    def height(self) -> int:
        """The house's height in cells."""
        return self.config.height

    @property
    def step_count(self) -> int:
        """Steps taken in the current episode."""
        return 0 if self.episode is None else self.episode.step_count

    @property
    def agent_pos(self) -> tuple[int, int]:
        """The agent's (x, y) cell."""
        x, y = self.world.state.agent_pos[0].tolist()
        return x, y

    @property
    def agent_dir(self) -> int:
        """The agent's direction: 0 east, 1 south, 2 west, 3 north."""
        return int(self.world.state.agent_dir[0])

    @property
    def front_pos(self) -> tuple[int, int]:
        """The (x, y) cell the agent faces."""
        (x, y), (dx, dy) = self.agent_pos, DIR_VEC[self.agent_dir].tolist()
        return x + dx, y + dy

    def get_frame(self, highlight: bool = True, tile_size: int = 32, agent_pov: bool = False) -> np.ndarray:
        """MiniGrid's ``get_frame``: the house as an RGB image, or with ``agent_pov`` what the agent sees.

        ``agent_pov`` draws the ``image`` observation: with the partial view (``view_size``) the picture of that
        view, the agent facing up (:func:`~marple_gym.rendering.frames.render_view`); with the full view (no
        ``view_size``, the default) the whole house as the ``image`` holds it (what the agent does not perceive
        screened off; a household agent perceives everything, so the picture is the house, as without
        ``agent_pov``, and ``RGBImgPartialObsWrapper`` then gives ``RGBImgObsWrapper``'s image).
        ``highlight`` lightens the cells the agent sees; an agent that sees every cell has none lightened.
        """
        # MiniGrid's drawing: loaded when a frame is drawn, so that importing marple_gym stays light.
        from marple_gym.rendering.frames import lighten, render_frame, render_view

        world = self._started_world("get_frame()")
        view, perceived = self.agent_view_size, self._perceived()
        if agent_pov and view is not None:
            return render_view(world, view, tile_size, see_through_walls=self.see_through_walls, perceived=perceived)
        if agent_pov:
            return render_frame(world, tile_size, visibility=perceived)
        frame = render_frame(world, tile_size)
        seen = self._seen_cells(world)
        return lighten(frame, seen) if highlight and seen is not None else frame

    @property
    def grid(self) -> Grid:
        """MiniGrid's object grid of the house now (``minigrid.core.grid.Grid``, indexed ``get(x, y)``).

        Built on each read from the current state, so writing to it changes nothing in the env. The cells where
        the agent's task is done (its current subgoal's targets) are ``Goal`` objects
        (:mod:`~marple_gym.envs.minigrid_grid`). Like MiniGrid's, it is the whole truth, whatever the agent sees.
        """
        from marple_gym.envs.minigrid_grid import house_grid  # MiniGrid's objects: loaded when asked for

        world = self._started_world("grid")
        return house_grid(world, self._goal_cells(world))

    def gen_obs_grid(self, agent_view_size: int | None = None) -> tuple[Grid, np.ndarray]:
        """MiniGrid's ``gen_obs_grid``: the ``Grid`` of the agent's view, facing up, and its ``(x, y)``
        visibility mask (walls and closed doors hide what is behind them unless ``see_through_walls``; what the
        agent does not perceive is unseen).

        ``agent_view_size`` defaults to the env's ``view_size``; a fully observable env (no ``view_size``) has
        no default, so a size must be given (``ViewSizeWrapper`` gives its own).
        """
        from marple_gym.envs.minigrid_grid import view_grid  # MiniGrid's objects: loaded when asked for

        view = agent_view_size or self.agent_view_size
        if view is None:
            raise ValueError(
                "gen_obs_grid() makes the agent's partial view: pass agent_view_size, "
                "or make the env with view_size, e.g. gym.make(id, view_size=7)"
            )
        world = self._started_world("gen_obs_grid()")
        goal = self._goal_cells(world)
        return view_grid(world, goal, check_view_size(view), self.see_through_walls, self._perceived())

    def _started_world(self, reader: str) -> World:
        """The current world, or a RuntimeError naming ``reader`` before the first reset."""
        world = self.world  # a view built on each access: once per read
        if world is None:
            raise RuntimeError(f"call reset() before {reader}")
        return world

    def _seen_cells(self, world: World) -> np.ndarray | None:
        """(H, W) bool: the cells the agent sees now (in its view, and perceived); None when it sees every one."""
        view, perceived = self.agent_view_size, self._perceived()
        if view is None:
            return None if perceived is None else perceived.seen
        in_view = Visibility.egocentric(world.house, world.state, 0, view, self.see_through_walls).seen
        return in_view if perceived is None else in_view & perceived.seen

    def _perceived(self) -> Visibility | None:
        """What the agent perceives of the house, where that is less than all of it (a searching agent's room
        or window, closed containers' contents hidden); None: everything its view shows."""
        return None

    def _goal_cells(self, world: World) -> np.ndarray:
        """(H, W) bool: MiniGrid's goal squares, the target cells of the subgoal the agent is on (none once
        the mission is complete)."""
        from marple_gym.envs.minigrid_grid import goal_mask  # MiniGrid's objects: loaded when asked for

        return goal_mask(world, self.progress.current)
