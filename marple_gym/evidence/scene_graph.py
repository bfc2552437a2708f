"""Scene-graph evidence: entities and their physical relations as a directed graph.

Nodes (keyed by instance name) carry ``kind`` (room, furniture, door, object,
agent), ``type`` and, for things with states, ``states`` (ability -> bool).
Edges carry ``relation``:

* object -> furniture: ``onTop`` or ``inside``;
* object, furniture, agent -> room: ``inRoom`` (objects on the floor also get
  ``on_floor=True`` on their node);
* agent -> object: ``holding``;
* door -> room: ``connects`` (for both rooms it joins).

Rooms, doors, furniture and their relations never change while agents act, so
a :class:`SceneGraphBuilder` describes them once per house and afterwards only
redescribes the entities whose state arrays changed since the last state it
saw; every graph it returns is a new one, the caller's to keep and modify.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from marple_gym.world.assets import ASSETS, BIT, DOOR
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import WorldState

_Edges = tuple[tuple[str, str], ...]
"""A node's out-edges: (target node, relation), in the order they are added."""

_STATES: dict[tuple[int, int], dict[str, bool]] = {}


def _states(bits: int, mask: int) -> dict[str, bool]:
    """``{ability: value}`` for the abilities in ``mask`` (shared: copied into every graph, never handed out)."""
    key = (bits, mask)
    states = _STATES.get(key)
    if states is None:
        states = _STATES[key] = {name: bool(bits & b) for name, b in BIT.items() if mask & b}
    return states


class SceneGraphBuilder:
    """The scene graphs of one house's states (see module docs).

    ``build(state)`` equals a graph built from scratch for ``state``, node for
    node, edge for edge and in the same order; only the entities whose arrays
    differ from the previous call's are described again.
    """

    def __init__(self, house: House) -> None:
        self.house = house
        room_names = [r.name for r in house.rooms]
        self._room_names = room_names
        self._fur_mask = [int(ASSETS.fur_mask[code]) for code in house.fur_type_list]
        self._obj_mask = [int(ASSETS.obj_mask[code]) for code in house.obj_type_list]
        self._obj_kinds = [ASSETS.object_names[code] for code in house.obj_type_list]
        names: list[str] = []
        attrs: list[dict[str, Any]] = []
        edges: list[_Edges] = []
        for room in house.rooms:
            names.append(room.name)
            attrs.append({"kind": "room", "type": room.type, "top": room.top, "size": room.size})
            edges.append(())
        for i, name in enumerate(house.fur_names):
            code, (x, y) = house.fur_type_list[i], house.fur_pos[i].tolist()
            names.append(name)
            if code == DOOR:
                attrs.append({"kind": "door", "type": "door", "pos": (x, y), "states": None})
                sides = (house.room_of_cell(x + dx, y + dy) for dx, dy in DIR_VEC)
                edges.append(tuple((room_names[r], "connects") for r in sides if r >= 0))
            else:
                w, h = house.fur_size[i].tolist()
                kind = ASSETS.furniture_names[code]
                attrs.append({"kind": "furniture", "type": kind, "pos": (x, y), "size": (w, h), "states": None})
                edges.append(((room_names[int(house.fur_room[i])], "inRoom"),))
        self._first_object = len(names)
        names += house.obj_names
        attrs += [{} for _ in house.obj_names]
        edges += [() for _ in house.obj_names]
        self._first_agent = len(names)
        names += house.agent_names
        attrs += [{} for _ in house.agent_names]
        edges += [() for _ in house.agent_names]
        self._names, self._attrs, self._edges = names, attrs, edges
        self._nested = [i for i, a in enumerate(attrs) if "states" in a] + list(
            range(self._first_object, self._first_agent)
        )
        self._seen: tuple[list, ...] | None = None

    def build(self, state: WorldState) -> nx.DiGraph:
        """The scene graph of ``state`` (a state of this builder's house), a new graph."""
        self._update(state)
        g = nx.DiGraph()
        nodes, succ, pred = g._node, g._succ, g._pred  # filled directly: networkx's own dict-of-dicts layout
        names, attrs = self._names, self._attrs
        for name, a in zip(names, attrs):
            nodes[name] = a.copy()
            succ[name] = {}
            pred[name] = {}
        for i in self._nested:
            node = nodes[names[i]]
            node["states"] = node["states"].copy()
        for name, out in zip(names, self._edges):
            if out:
                mine = succ[name]
                for target, relation in out:
                    mine[target] = pred[target][name] = {"relation": relation}
        return g

    # ---- keeping the description up to date ---------------------------------------------------------------------
    def _update(self, state: WorldState) -> None:
        seen = (
            state.fur_state.tolist(),
            state.obj_pos.tolist(),
            state.obj_state.tolist(),
            state.agent_pos.tolist(),
            state.agent_dir.tolist(),
            state.carrying.tolist(),
        )
        before = self._seen
        self._seen = seen
        fur_state, obj_pos, obj_state, agent_pos, agent_dir, carrying = seen
        if before is None:
            before = ([None] * len(fur_state), [None] * len(obj_pos), [None] * len(obj_state), None, None, None)
        if fur_state != before[0]:
            for i, (bits, old) in enumerate(zip(fur_state, before[0])):
                if bits != old:
                    self._attrs[i + len(self._room_names)]["states"] = _states(bits, self._fur_mask[i])
        if obj_pos != before[1] or obj_state != before[2]:
            # An object changes hands only by moving (a held object has no position), so this covers holding too.
            held = {o for hands in carrying for o in hands if o >= 0}
            for i, (pos, bits) in enumerate(zip(obj_pos, obj_state)):
                if pos != before[1][i] or bits != before[2][i]:
                    self._describe_object(i, pos, bits, i in held)
        if agent_pos != before[3] or agent_dir != before[4] or carrying != before[5]:
            for a, (pos, d, hands) in enumerate(zip(agent_pos, agent_dir, carrying)):
                self._describe_agent(a, pos, d, hands)

    def _describe_object(self, i: int, pos: list[int], bits: int, held: bool) -> None:
        house = self.house
        x, y = pos
        attrs = {
            "kind": "object",
            "type": self._obj_kinds[i],
            "pos": None if x < 0 else (x, y),
            "states": _states(bits, self._obj_mask[i]),
        }
        edges: _Edges = ()
        if not held:
            fur = house.fur_at[y][x]
            if fur >= 0:
                relation = "inside" if ASSETS.fur_holds[house.fur_type_list[fur]] == 2 else "onTop"
                edges = ((house.fur_names[fur], relation),)
            else:
                attrs["on_floor"] = True
            edges += ((self._room_names[house.room_of_cell(x, y)], "inRoom"),)
        self._attrs[self._first_object + i] = attrs
        self._edges[self._first_object + i] = edges

    def _describe_agent(self, a: int, pos: list[int], d: int, hands: list[int]) -> None:
        house = self.house
        x, y = pos
        r = house.room_of_cell(x, y)
        edges = ((self._room_names[r], "inRoom"),) if r >= 0 else ()
        edges += tuple((house.obj_names[o], "holding") for o in hands if o >= 0)
        self._attrs[self._first_agent + a] = {"kind": "agent", "type": "agent", "pos": (x, y), "dir": d}
        self._edges[self._first_agent + a] = edges


def scene_graph(house: House, state: WorldState) -> nx.DiGraph:
    """The scene graph of one world state (for many states of one house, keep a :class:`SceneGraphBuilder`)."""
    return SceneGraphBuilder(house).build(state)
