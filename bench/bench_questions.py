"""Belief and goal questions: how fast they are generated, and how fast each method answers one.

    python bench/bench_questions.py                              # 10 test houses x 10 episodes
    python bench/bench_questions.py --houses 10 --episodes 20    # a bigger test split
    python bench/bench_questions.py --policy runs/beliefs/belief-policy.pt   # bip's answers timed too

Figures are per CPU second of this process (``time.process_time``), one core, so that other jobs on the
machine change them less than wall-clock rates; the wall-clock time is printed beside. Generation is of every
episode's candidate questions (the moments each type describes, decided by the exact observer), then their
balancing into a split. Targets: generation at least 100 questions a second on one core, the exact observer
under one second a question. "Cold" answers
time an observer that has seen nothing of the question's episode before (it replays the episode and weighs
every hypothesis), "warm" ones a method answering a whole test split in order, as an evaluation does.
"""

from __future__ import annotations

import argparse
import collections
import time

from marple_eval.beliefs.methods import BeliefObserver, BeliefUniform
from marple_gym.beliefs.questions.balance import balance_split
from marple_gym.beliefs.questions.generate import QuestionSpec, balance_rng, make_questions
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion
from marple_gym.beliefs.questions.text import question_text

GENERATION_TARGET = 100.0  # questions per second per core
OBSERVER_TARGET = 1.0  # seconds per question


def timed(work) -> tuple[object, float, float]:
    """(result, CPU seconds, wall seconds) of ``work()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = work()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def generation(spec: QuestionSpec) -> list[BeliefQuestion]:
    """Time the candidates of the test split's episodes and their balancing; returns the candidates."""
    work = spec.episodes("test")
    questions, cpu, wall = timed(lambda: [q for k, i in work for q in make_questions(spec, "test", k, i)])
    balanced, balance_cpu, _ = timed(lambda: balance_split(questions, balance_rng(spec, "test")))
    kinds = collections.Counter(q.type for q in questions)
    print(
        f"generation: {len(questions)} candidate questions from {len(work)} episodes in {spec.test_houses} test houses"
    )
    print(
        f"  {len(questions) / cpu:,.0f} questions per CPU second ({cpu:.2f} CPU s, {wall:.2f} s wall); "
        f"target {GENERATION_TARGET:.0f}: {len(questions) / cpu / GENERATION_TARGET:.1f}x"
    )
    print("  per type: " + ", ".join(f"{k} {kinds.get(k, 0)}" for k in QUESTION_TYPES))
    print(f"  balanced: {len(balanced)} questions ({len(balanced) // max(1, len(set(q.type for q in balanced)))} of "
          f"each type) in {balance_cpu:.2f} CPU s")  # fmt: skip
    _, text_cpu, _ = timed(lambda: [question_text(q) for q in questions])
    print(
        f"  their texts: {text_cpu / max(1, len(questions)) * 1000:.2f} ms a question; with them "
        f"{len(questions) / (cpu + text_cpu):,.0f} questions per CPU second"
    )
    return questions


def cold_observer(questions: list[BeliefQuestion], count: int) -> None:
    """Each question answered by a new observer whose episode is replayed from its record (nothing cached)."""
    from marple_gym.beliefs import distances, perception
    from marple_gym.beliefs.episodes import SearchEpisode

    times = []
    for q in questions[:count]:
        distances._HOUSES.clear()  # the cost tables and percepts the house's other episodes left behind
        perception._PERCEPTS.clear()
        fresh = SearchEpisode.from_json(q.episode.to_json())  # no trace kept from generation
        question = BeliefQuestion(q.id, q.type, fresh, q.end_time, q.options, q.answer, q.posterior, q.given)
        _, cpu, _ = timed(lambda question=question: BeliefObserver().answer(question))
        times.append(cpu)
    worst = max(times)
    print(
        f"exact observer, cold: {sum(times) / len(times) * 1000:.1f} ms a question on average, "
        f"{worst * 1000:.1f} ms at most ({len(times)} questions); target {OBSERVER_TARGET:.0f} s: "
        f"{OBSERVER_TARGET / worst:.0f}x under it"
    )


def warm(method, questions: list[BeliefQuestion]) -> None:
    _, cpu, wall = timed(lambda: method.answer_all(questions))
    print(
        f"{method.name}, a whole split: {cpu / len(questions) * 1000:.2f} ms a question "
        f"({cpu:.2f} CPU s, {wall:.2f} s wall for {len(questions)})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--houses", type=int, default=10, help="test houses (default 10)")
    parser.add_argument("--episodes", type=int, default=10, help="episodes per test house (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cold", type=int, default=30, help="questions answered by a cold observer (default 30)")
    parser.add_argument("--policy", default=None, help="a belief policy checkpoint: time bip's answers too")
    args = parser.parse_args(argv)
    if args.houses < 1 or args.episodes < 1 or args.cold < 1:
        parser.error("--houses, --episodes and --cold must be at least 1")
    spec = QuestionSpec(seed=args.seed, test_houses=args.houses, episodes_per_house=args.episodes)
    questions = generation(spec)
    if not questions:
        raise SystemExit("no question was kept: nothing to answer")
    cold_observer(questions, args.cold)
    for method in (BeliefUniform(), BeliefObserver()):
        warm(method, questions)
    if args.policy:
        import torch

        from marple_agents.beliefs.bip import BeliefBip

        torch.set_num_threads(1)  # one core, as every figure here (threads that wait on a busy core spin)
        warm(BeliefBip(args.policy), questions)


if __name__ == "__main__":
    main()
