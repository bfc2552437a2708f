"""The houses agents search: an apartment of four rooms with closed containers to look in.

MMToM-QA's apartments have a kitchen, a bedroom, a living room and a bathroom, with cabinets, a fridge and
tables. The default house here is that apartment in our world: the rooms' places, the pieces' places and the
objects on and in them are drawn by the generator (:mod:`marple_gym.generation`), so one config gives many
houses. Any other config works as well, so long as it has objects worth searching for.
"""

from __future__ import annotations

from marple_gym.generation.config import AgentSpec, FurnitureSpec, HouseConfig, RoomSpec

APARTMENT: dict[str, tuple[str, ...]] = {
    "Kitchen": ("electric_refrigerator", "cabinet", "table"),
    "Bedroom": ("closet", "bed"),
    "Bathroom": ("cabinet",),
    "LivingRoom": ("cabinet", "sofa"),
}
"""Each room of the default house and the pieces of furniture it has at least."""


def apartment_config(agents: int = 1, objects_per_furniture: tuple[int, int] = (1, 3)) -> HouseConfig:
    """The default house of searching agents (see the module docs), with ``agents`` agents (``A``, ``B``, ...)."""
    rooms = [
        RoomSpec(room, furniture=[FurnitureSpec(f) for f in pieces], num_furniture=len(pieces))
        for room, pieces in APARTMENT.items()
    ]
    colors = ("red", "blue", "green", "purple")
    people = [AgentSpec(name=chr(ord("A") + i), color=colors[i % len(colors)]) for i in range(agents)]
    return HouseConfig(rooms=rooms, agents=people, objects_per_furniture=objects_per_furniture)
