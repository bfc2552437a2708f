"""What the families' runs share: items scored one at a time into a journal beside the results file, so that an
interrupted run resumes where it stopped (:class:`marple_eval.journal.Journal`, the whodunit protocol's too)."""

from __future__ import annotations

import logging
import resource
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from marple_eval.journal import Journal, journal_path
from marple_eval.llm.client import dry_run_totals
from marple_gym.datasets.manifest import MANIFEST
from marple_gym.datasets.shards import file_sha256

log = logging.getLogger(__name__)
Item = TypeVar("Item")


def journaled(
    items: Sequence[Item],
    key: Callable[[Item], str],
    score: Callable[[Item], Any],
    out: str | Path,
    header: dict[str, Any],
    *,
    progress: bool = True,
    desc: str = "scoring",
) -> tuple[list[Any], Journal]:
    """``score(item)`` (a JSON value) of every item, in order: those an interrupted run of the same header
    journalled beside ``out`` are read back, the others scored and journalled one by one. Returns the records and
    the journal (remove it once the results are saved)."""
    journal = Journal(journal_path(out), header)
    done = {}
    for n, record in journal.entries():
        if not isinstance(record, dict) or not isinstance(record.get("key"), str) or "record" not in record:
            raise ValueError(f"{journal.path}: line {n}: not an entry of this journal")
        done[record["key"]] = record["record"]
    wanted = {key(item) for item in items}
    stray = sorted(set(done) - wanted)
    if stray:
        raise ValueError(
            f"{journal.path}: holds {stray[0]}, not an item of this run; delete it or choose another --out"
        )
    bar = tqdm(total=len(items), initial=len(done), desc=desc, unit="item", disable=not progress)
    try:
        for item in items:
            name = key(item)
            if name not in done:
                done[name] = score(item)
                journal.append({"key": name, "record": done[name]})
                bar.update(1)
    except BaseException:
        if journal.path.is_file():
            log.warning("%s keeps %d scored items; run the same command again to resume", journal.path, len(done))
        raise
    finally:
        bar.close()
    return [done[key(item)] for item in items], journal


def per_type(items: Sequence[Item], limit: int | None, type_of: Callable[[Item], str]) -> list[Item]:
    """The first ``limit`` items of each type (all with ``limit`` None), in their order."""
    if limit is None:
        return list(items)
    seen: dict[str, int] = {}
    kept = []
    for item in items:
        kind = type_of(item)
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] <= limit:
            kept.append(item)
    return kept


def run_settings(method: str, data: str, limit: int | None, dry_run: bool, **more: Any) -> dict[str, Any]:
    """What a family's results record about the run besides the method's own settings: the method's name, the
    set (and its manifest's SHA-256, so that a journal of another set is not resumed), the limit, a dry run."""
    return {
        "method": method,
        "data": str(data),
        "data_manifest_sha256": file_sha256(Path(data) / MANIFEST),
        "limit": limit,
        "dry_run": dry_run,
        **more,
    }


def dry_run_requests(out: Path, dry_run: bool) -> Path | None:
    """Where a dry run writes its requests (beside its results), emptied with its journal: a dry run starts
    afresh, every request written again; None for a real run."""
    if not dry_run:
        return None
    prompts = out.with_suffix(".prompts.jsonl")
    prompts.unlink(missing_ok=True)
    journal_path(out).unlink(missing_ok=True)
    return prompts


def dry_run_note(prompts: Path, client: Any) -> str:
    """A dry run's requests in one line."""
    totals = dry_run_totals(prompts, client.settings)
    return (
        f"dry run: {totals['requests']} requests to send ({totals['from_cache']} already in the cache), about "
        f"{totals['estimated_prompt_tokens']} prompt tokens; requests: {prompts}"
    )


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished child processes so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Stages:
    """The CPU and wall seconds of a run's stages, in order (what a benchmark's budget is measured in: CPU
    seconds, steadier than wall time on a shared machine)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []

    def run(self, name: str, work: Callable[[], Any]) -> Any:
        """``work()``, its seconds kept under ``name`` and printed."""
        cpu, wall = cpu_seconds(), time.perf_counter()
        out = work()
        self.rows.append((name, cpu_seconds() - cpu, time.perf_counter() - wall))
        print(f"{name}: {self.rows[-1][1]:.1f} CPU s ({self.rows[-1][2]:.1f} s wall)", flush=True)
        return out

    def table(self) -> str:
        """A Markdown table of the stages and their sum."""
        lines = ["| stage | CPU s | wall s |", "| --- | --- | --- |"]
        lines += [f"| {name} | {cpu:.1f} | {wall:.1f} |" for name, cpu, wall in self.rows]
        cpu, wall = sum(r[1] for r in self.rows), sum(r[2] for r in self.rows)
        return "\n".join([*lines, f"| all | {cpu:.1f} | {wall:.1f} |"])
