"""What MiniGrid's wrappers and tools read of an env, in MiniGrid's own meaning, where it carries over.

:class:`MiniGridAPI` gives :class:`~marple_gym.envs.household.MarpleEnv` MiniGrid's agent attributes
(``agent_pos``, ``agent_dir``, ``front_pos``), its ``actions`` enum and ``get_frame`` (the RGB house, or the
picture of the agent's view), so ``minigrid.wrappers`` such as ``RGBImgObsWrapper``, ``RGBImgPartialObsWrapper``,
``ActionBonus`` and ``PositionBonus`` work unchanged. MiniGrid's object grid (``env.grid``) and its 3-channel
view (``gen_obs_grid``) have no MARPLE counterpart: reading them raises :class:`NoMiniGridEquivalent`, one line
that names what to use instead. docs/rl.md has the table of every MiniGrid wrapper on MARPLE envs.
"""

from __future__ import annotations

import numpy as np

from marple_gym.errors import MarpleError
from marple_gym.evidence.egocentric import DIR_VEC
from marple_gym.world.actions import Action

NO_GRID = (
    "MARPLE envs have no MiniGrid object grid (env.grid, read by FullyObsWrapper, SymbolicObsWrapper, "
    "DirectionObsWrapper and NoDeath): the 'image' observation is already the fully observable symbolic grid "
    "(8 code channels; gym.make(id) without view_size), the 'subgoal' codes name the current target, "
    "and no cell ends an episode (docs/rl.md, 'MiniGrid's wrappers')"
)
NO_OBS_GRID = (
    "MiniGrid's gen_obs_grid (read by ViewSizeWrapper) makes its 3-channel view; a MARPLE env's view is "
    "gym.make(id, view_size=v) or marple_gym.EgocentricView(env, view_size=v) (8 code channels)"
)


class NoMiniGridEquivalent(MarpleError, AttributeError):
    """A MiniGrid attribute that MARPLE envs do not have; the message says what to use instead.

    An ``AttributeError``, so ``hasattr(env, "grid")`` is False, as for any env that is not MiniGrid's.
    """


class MiniGridAPI:
    """MiniGrid's env attributes for an env with ``world``, ``agent_view_size`` and ``see_through_walls``."""

    actions = Action
    """The action enum, as MiniGrid's ``env.actions`` (``left``, ``right``, ``forward`` share its values)."""
    highlight = True
    """Whether :meth:`get_frame` lightens the cells the agent sees by default (MiniGrid's ``env.highlight``)."""

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

        ``agent_pov`` needs the partial view (``view_size``): the picture of that view, the agent facing up
        (:func:`~marple_gym.rendering.frames.render_view`). ``highlight`` lightens the cells the agent sees; with
        the full view (no ``view_size``) it sees every cell and nothing is lightened.
        """
        from marple_gym.rendering.frames import highlight_view, render_frame, render_view

        world = self.world  # a view built on each access: once per frame
        if world is None:
            raise RuntimeError("call reset() before get_frame()")
        view = self.agent_view_size
        if agent_pov:
            if view is None:
                raise ValueError(
                    "agent_pov (RGBImgPartialObsWrapper) draws the agent's partial view: "
                    "make the env with view_size, e.g. gym.make(id, view_size=7)"
                )
            return render_view(world, view, tile_size, see_through_walls=self.see_through_walls)
        frame = render_frame(world, tile_size)
        if highlight and view is not None:
            frame = highlight_view(frame, world, view, see_through_walls=self.see_through_walls)
        return frame

    @property
    def grid(self):
        raise NoMiniGridEquivalent(NO_GRID)

    def gen_obs_grid(self, agent_view_size: int | None = None):
        raise NoMiniGridEquivalent(NO_OBS_GRID)
