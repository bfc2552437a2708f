"""Scene-graph evidence: entities and their physical relations as a directed graph.

Nodes (keyed by instance name) carry ``kind`` (room, furniture, door, object,
agent), ``type`` and, for things with states, ``states`` (ability -> bool).
Edges carry ``relation``:

* object -> furniture: ``onTop`` or ``inside``;
* object, furniture, agent -> room: ``inRoom`` (objects on the floor also get
  ``on_floor=True`` on their node);
* agent -> object: ``holding``;
* door -> room: ``connects`` (for both rooms it joins).
"""

from __future__ import annotations

import networkx as nx

from marple_gym.world.assets import ASSETS, DOOR, states_from_bits
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import WorldState


def scene_graph(house: House, state: WorldState) -> nx.DiGraph:
    """The scene graph of one world state."""
    g = nx.DiGraph()
    room_names = [r.name for r in house.rooms]
    for room in house.rooms:
        g.add_node(room.name, kind="room", type=room.type, top=room.top, size=room.size)
    fur_mask = ASSETS.fur_mask
    for i, name in enumerate(house.fur_names):
        code = int(house.fur_type[i])
        x, y = house.fur_pos[i].tolist()
        states = states_from_bits(int(state.fur_state[i]), int(fur_mask[code]))
        if code == DOOR:
            g.add_node(name, kind="door", type="door", pos=(x, y), states=states)
            for dx, dy in DIR_VEC:
                r = house.room_of_cell(x + dx, y + dy)
                if r >= 0:
                    g.add_edge(name, room_names[r], relation="connects")
            continue
        w, h = house.fur_size[i].tolist()
        g.add_node(name, kind="furniture", type=ASSETS.furniture_names[code], pos=(x, y), size=(w, h), states=states)
        g.add_edge(name, room_names[int(house.fur_room[i])], relation="inRoom")
    holders = {int(o): a for a, hands in enumerate(state.carrying.tolist()) for o in hands if o >= 0}
    obj_mask = ASSETS.obj_mask
    for i, name in enumerate(house.obj_names):
        code = int(house.obj_type[i])
        x, y = state.obj_pos[i].tolist()
        states = states_from_bits(int(state.obj_state[i]), int(obj_mask[code]))
        g.add_node(name, kind="object", type=ASSETS.object_names[code], pos=None if x < 0 else (x, y), states=states)
        if i in holders:
            continue
        fur = house.fur_at[y][x]
        if fur >= 0:
            relation = "inside" if ASSETS.fur_holds[house.fur_type_list[fur]] == 2 else "onTop"
            g.add_edge(name, house.fur_names[fur], relation=relation)
        else:
            g.nodes[name]["on_floor"] = True
        g.add_edge(name, room_names[house.room_of_cell(x, y)], relation="inRoom")
    for a, name in enumerate(house.agent_names):
        x, y = state.agent_pos[a].tolist()
        g.add_node(name, kind="agent", type="agent", pos=(x, y), dir=int(state.agent_dir[a]))
        r = house.room_of_cell(x, y)
        if r >= 0:
            g.add_edge(name, room_names[r], relation="inRoom")
        for o in state.carrying[a].tolist():
            if o >= 0:
                g.add_edge(name, house.obj_names[o], relation="holding")
    return g
