"""The keyboard: which key plays which action, in ``marple play`` and in ``gymnasium.utils.play``."""

from __future__ import annotations

from marple_gym.world.actions import Action

# (pygame key names, action, what the help line says)
KEYS: tuple[tuple[tuple[str, ...], Action, str], ...] = (
    (("left",), Action.left, "left: turn left"),
    (("right",), Action.right, "right: turn right"),
    (("up",), Action.forward, "up: forward"),
    (("p", "page up", "tab"), Action.pickup, "p: pick up"),
    (("d", "page down"), Action.drop, "d: drop"),
    (("t", "space"), Action.toggle, "t/space: toggle"),
    (("o",), Action.open, "o: open"),
    (("c",), Action.close, "c: close"),
    (("x",), Action.clean, "x: clean"),
    (("i",), Action.idle, "i: idle"),
)
KEY_TO_ACTION: dict[str, Action] = {name: action for names, action, _ in KEYS for name in names}
RESET_KEYS = ("backspace", "r")
QUIT_KEYS = ("escape", "q")


def pygame_key_code(name: str) -> int:
    """The pygame key code of a key name as :data:`KEYS` writes it ("left", "page up", "p")."""
    import pygame  # a window's keys: loaded when one opens

    return getattr(pygame, f"K_{name}" if len(name) == 1 else "K_" + name.upper().replace(" ", ""))


def keys_to_action() -> dict[tuple[int], int]:
    """``{(pygame key code,): action}`` for every key of :data:`KEYS`: ``gymnasium.utils.play``'s keymap."""
    return {(pygame_key_code(name),): int(action) for names, action, _ in KEYS for name in names}
