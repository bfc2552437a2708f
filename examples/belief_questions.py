"""Belief and goal questions: one of each type, as a person reads it, with the frame at its cut.

python examples/belief_questions.py                       # print one question of each type
python examples/belief_questions.py --pictures docs/images # and draw the docs' pictures

The questions come from the balanced test split of the quick preset's set (seed 0): for each type the one with
the shortest text among those cut after at least six steps (for type 1.2, a Sally-Anne episode's).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image

from marple_gym.beliefs.questions import QUESTION_TYPES, QuestionSpec, generate_questions, question_text
from marple_gym.beliefs.questions.conditions import frames
from marple_gym.beliefs.questions.generate import PRESETS
from marple_gym.rendering import render_frame
from marple_gym.rendering.compose import Panel, compose
from marple_gym.world.actions import Action
from marple_gym.world.world import World

MIN_STEPS = 6
"""Examples show at least this many steps (the shortest texts of some types come from the first steps)."""


def examples() -> dict[str, object]:
    chosen: dict[str, tuple[int, object]] = {}
    for q in generate_questions(QuestionSpec(seed=0, **PRESETS["quick"])):
        if (q.type == "1.2" and q.episode.kind != "false-belief") or q.end_time < MIN_STEPS:
            continue
        size = len(question_text(q))
        if q.type not in chosen or size < chosen[q.type][0]:
            chosen[q.type] = (size, q)
    return {kind: chosen[kind][1] for kind in QUESTION_TYPES if kind in chosen}


def sally_anne_steps(q) -> list[int]:
    """The start, the searcher's first close (it has put the object away), the mover's last close (it has moved
    the object) and the cut."""
    outcomes = q.episode.trace().outcomes
    close = int(Action.close)
    put = next(t for t, step in enumerate(outcomes) if step[0].action == close and step[0].success)
    moved = max(
        t for t, step in enumerate(outcomes[: q.episode.search_start]) if step[1].action == close and step[1].success
    )
    return [0, put + 1, moved + 1, q.end_time]


def caption(q) -> list[str]:
    name = q.names[q.episode.searcher]
    return [
        f"{name} ({q.episode.trace().house.agent_colors[q.episode.searcher]}), step {q.end_time}",
        f"answer: ({q.letter})",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pictures", type=Path, default=None, help="draw the pictures into this folder")
    args = parser.parse_args()
    chosen = examples()
    for kind, q in chosen.items():
        print(f"--- {kind} {QUESTION_TYPES[kind]} (answer: {q.letter}, the exact observer's P(a) = {q.posterior:.3f})")
        print(question_text(q), "\n")
    if args.pictures is None:
        return
    args.pictures.mkdir(parents=True, exist_ok=True)
    for name, kinds in (
        ("beliefs-belief-types.png", ("1.1", "1.2", "1.3")),
        ("beliefs-goal-types.png", ("2.1", "2.2", "2.3", "2.4")),
    ):
        panels = [
            Panel(frames(chosen[k], 1, 16)[0], f"{k} {QUESTION_TYPES[k]}", caption=caption(chosen[k])) for k in kinds
        ]
        Image.fromarray(compose(panels, font_size=14)).save(args.pictures / name)
    story = chosen["1.2"]
    names = story.names
    panels = [
        Panel(render_frame(World(story.episode.trace().house, story.episode.trace().states[t]), 16), title)
        for t, title in zip(
            sally_anne_steps(story),
            ["the start", f"{names[0]} has put it away", f"{names[1]} has moved it", "the cut"],
        )
    ]
    Image.fromarray(compose(panels, ["A Sally-Anne episode (question 1.2)"], font_size=14)).save(
        args.pictures / "beliefs-sally-anne.png"
    )
    print(f"pictures written to {args.pictures}")


if __name__ == "__main__":
    main()
