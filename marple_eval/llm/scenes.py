"""Scene graphs as text for a language model: one line per entity, states in plain words.

The paper gives GPT-4 the scene graphs of both agents' initial and current
states and of the query state (supplement G). We write a graph
(:func:`marple_gym.evidence.scene_graph`) as compact text: rooms, doors, the
agent, then every piece of furniture and every object with its states and its
relations (``onTop``, ``inside``, ``inRoom``, ``holding``).

The query state is described as the fragment of a scene graph the question is
about (the laundry in a Bathroom toggled on, the pillow held by an agent...),
not as a full scene at T: a full scene would show where the culprit stood when
it reached the query state, which gives the answer away.
"""

from __future__ import annotations

import networkx as nx

from marple_gym.evidence.language import relation, word
from marple_gym.missions.mission import Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.house import DIR_NAMES

STATE_WORDS: dict[str, tuple[str, str]] = {
    "cookable": ("cooked", "raw"),
    "dustyable": ("dusty", "clean"),
    "freezable": ("frozen", "not frozen"),
    "openable": ("open", "closed"),
    "sliceable": ("sliced", "whole"),
    "soakable": ("soaked", "dry"),
    "stainable": ("stained", "unstained"),
    "toggleable": ("on", "off"),
}
"""Each ability's value in words: (True, False)."""


def _states(states: dict[str, bool]) -> str:
    return ", ".join(STATE_WORDS[ability][0 if value else 1] for ability, value in sorted(states.items()))


def _relations(graph: nx.DiGraph, node: str) -> list[str]:
    return [f"{data['relation']} {target}" for target, data in graph.adj[node].items()]


def _entity(graph: nx.DiGraph, node: str) -> str:
    data = graph.nodes[node]
    parts = [f"{node} ({data['type']})"]
    if data.get("pos") is not None:
        parts.append(f"at {tuple(data['pos'])}")
    parts += _relations(graph, node)
    if data.get("on_floor"):
        parts.append("on the floor")
    if data["kind"] == "object" and data.get("pos") is None:
        parts.append("held by the agent")
    line = " ".join(parts)
    states = _states(data.get("states") or {})
    return f"{line}: {states}" if states else line


def describe_scene(graph: nx.DiGraph) -> str:
    """A scene graph as text, in a fixed order so equal scenes give equal text."""
    by_kind: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        by_kind.setdefault(data["kind"], []).append(node)
    lines = ["rooms: " + ", ".join(f"{r} ({graph.nodes[r]['type']})" for r in by_kind.get("room", []))]
    for agent in by_kind.get("agent", []):
        data = graph.nodes[agent]
        held = [t for t, d in graph.adj[agent].items() if d["relation"] == "holding"]
        room = [t for t, d in graph.adj[agent].items() if d["relation"] == "inRoom"]
        lines.append(
            f"agent at {tuple(data['pos'])} facing {DIR_NAMES[data['dir']]}"
            + (f" inRoom {room[0]}" if room else "")
            + f", holding {', '.join(held) if held else 'nothing'}"
        )
    for kind, title in (("door", "doors"), ("furniture", "furniture"), ("object", "objects")):
        lines.append(f"{title}:")
        lines += [f"- {_entity(graph, node)}" for node in by_kind.get(kind, [])]
    return "\n".join(lines)


def describe_query(query: Subgoal) -> str:
    """The query state as the scene-graph fragment that the question asks about."""
    fur, room = word(query.fur), word(query.room)
    if query.action == Action.pickup:
        return f"an agent holding the {word(query.obj)} that was on or in a {fur} in a {room}"
    if query.action == Action.drop:
        return f"the {word(query.obj)} newly {relation(query.fur)} a {fur} in a {room}"
    if query.action == Action.idle:
        return f"an agent standing idle by a {fur} in a {room}"
    ability, value = query.state
    return f"a {fur} in a {room} newly {STATE_WORDS[ability][0 if value else 1]}"
