"""How many of an LLM run's replies counted: read back from the run's request cache (``--method-arg cache=DIR``).

    python bench/llm_replies.py --family beliefs runs/llm/cache-beliefs

Every request the run sent is in the cache with the server's reply. A generated reply counts where the family's
parser reads an answer from it (beliefs: the first letter a or b; whodunit and expectations: a number from 0 to
100); a reply that gave none was followed by a log-likelihood request (``fallback=true``: one token, the top
log-probabilities), which counts where one of the family's choices is among the model's likeliest first tokens.
Prints the generated replies, those read, those scored by log-likelihood, those neither, the share that counted,
and the prompt and completion tokens of the generated replies. Use a cache of one run only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from marple_eval.beliefs.llm import parse_choice
from marple_eval.llm.answers import parse_answer
from marple_eval.llm.client import read_reply

PARSERS = {"beliefs": parse_choice, "whodunit": parse_answer, "expectations": parse_answer}
CHOICES = {"beliefs": ("a", "b"), "whodunit": ("a", "b"), "expectations": ("yes", "no")}


def counts(family: str, cache: Path) -> dict[str, int]:
    """The run's replies by how they counted (see the module docs)."""
    found = {"generated": 0, "read": 0, "log-likelihood": 0, "neither": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for path in sorted(cache.glob("*/*.json")):
        entry = json.loads(path.read_text())
        reply = read_reply(entry["response"], str(path))
        if entry["request"].get("logprobs"):
            tokens = {t.strip().lower() for t in reply.top_logprobs}
            found["log-likelihood" if tokens & set(CHOICES[family]) else "neither"] += 1
            continue
        found["generated"] += len(reply.texts)
        found["read"] += sum(PARSERS[family](t) is not None for t in reply.texts)
        found["prompt_tokens"] += reply.prompt_tokens
        found["completion_tokens"] += reply.completion_tokens
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache", type=Path, help="the run's cache folder")
    parser.add_argument("--family", choices=tuple(PARSERS), required=True)
    args = parser.parse_args(argv)
    found = counts(args.family, args.cache)
    counted = found["read"] + found["log-likelihood"]
    share = counted / found["generated"] if found["generated"] else float("nan")
    print(json.dumps({**found, "counted": counted, "share_counted": round(share, 4)}, indent=1))


if __name__ == "__main__":
    main()
