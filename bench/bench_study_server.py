"""`marple study-server` under load: answers per second, one participant's wait during a flood, memory.

    python bench/bench_study_server.py                      # about a minute on 2 cores
    python bench/bench_study_server.py --participants 50 --requests 10000

It builds a small web study (a 2-scenario dataset, 4 trials a scenario, 8-pixel tiles) in a temporary folder,
starts `marple study-server` on it in a child process (port 0, ``--max-per-address 0``: every participant here
comes from 127.0.0.1, as behind a reverse proxy), and plays participants as the page does: a session line, then
each answer in its own POST (with the study's write key) as soon as it is given.

* **answers per second**: ``--participants`` participants at once, each answering every evidence point of every
  trial as fast as the server replies; also the server's CPU seconds per 1,000 answers (its own process);
* **wait during a flood**: one participant posts one answer at a time while another client floods: 4 threads
  posting batches of a fresh page's whole session (89 lines, every line new) back to back; the participant's
  worst and median wait per answer;
* **memory**: the server's resident set (VmRSS) before the first request and after ``--requests`` requests in all
  (topped up with single answers of new participants).

Wall-clock figures depend on what else the machine runs; say so when you report them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from marple.study.server import KEY_HEADER
from marple.study.web import WebStudyOptions, build_web_study, read_web_study, sequence_trials
from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset
from marple_gym.datasets.dataset import MarpleDataset


def build_study(folder: Path) -> dict:
    data = folder / "data"
    spec = DatasetSpec([Unit.scenario("pillow"), Unit.scenario("laundry")], Sizes(2, 2, 1, 1), seed=3, splits=("test",))
    generate_dataset(spec, data, workers=1, progress=False)
    options = WebStudyOptions(tile_size=8, post_url="answers", practice=0)
    build_web_study(MarpleDataset(data), folder / "study", seed=1, limit=4, options=options)
    return read_web_study(folder / "study")


def page_lines(study: dict, client: str) -> list[dict]:
    """What a page sends for one participant: the session line, then every answer in order."""
    trials = sequence_trials(study, 0)
    lines = [
        {
            "type": "session",
            "participant": client,
            "seed": study["sequences"][0]["seed"],
            "sequence": 0,
            "modality": study["modality"],
            "trials": [t["episode_id"] for t in trials],
            "practice": [],
            "trial_set": study["trial_set"],
            "source": "web",
            "client": client,
            "seq": 0,
        }
    ]
    for trial in trials:
        for point, tau in enumerate(trial["evidence_steps"]):
            answer = {"type": "answer", "participant": client, "episode_id": trial["episode_id"]}
            answer |= {"scenario": trial["scenario"], "trial_index": trial["index"], "evidence_point": point}
            answer |= {"tau": tau, "horizon": trial["horizon"], "slider": 50, "time": "2026-11-26T10:00:00.000+00:00"}
            lines.append(answer | {"rt_ms": 900, "source": "web", "client": client, "seq": len(lines)})
    return lines


class Server:
    def __init__(self, folder: Path, out: Path) -> None:
        argv = [sys.executable, "-m", "marple.cli.main", "study-server", str(folder), "--out", str(out)]
        # All participants share one address here, as behind a proxy: the per-address cap would turn most away.
        argv += ["--port", "0", "--max-per-address", "0"]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        self.port = int(re.search(r":(\d+)/", self.process.stdout.readline()).group(1))
        self.key = read_web_study(folder)["write_key"]
        self.requests = 0
        self.lock = threading.Lock()

    def post(self, lines: list[dict]) -> float:
        """Send lines; the seconds until the reply (which must be 200)."""
        body = "".join(json.dumps(line) + "\n" for line in lines).encode()
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request("POST", "/answers", body=body, headers={KEY_HEADER: self.key})
            reply = conn.getresponse()
            reply.read()
        finally:
            conn.close()
        if reply.status != 200:
            raise RuntimeError(f"the server replied {reply.status}")
        with self.lock:
            self.requests += 1
        return time.perf_counter() - start

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks of 1/100 s

    def rss_mib(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


def throughput(server: Server, study: dict, participants: int) -> tuple[int, float, float]:
    """(answers, wall seconds, server CPU seconds) for ``participants`` answering at once."""
    sessions = [page_lines(study, f"load-{k}") for k in range(participants)]
    cpu, start = server.cpu_seconds(), time.perf_counter()

    def participant(lines: list[dict]) -> None:
        for line in lines:
            server.post([line])

    threads = [threading.Thread(target=participant, args=(lines,)) for lines in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answers = sum(len(lines) - 1 for lines in sessions)
    return answers, time.perf_counter() - start, server.cpu_seconds() - cpu


def wait_during_flood(server: Server, study: dict, flooders: int = 4) -> tuple[list[float], int]:
    """One participant's wait per answer while ``flooders`` threads post whole sessions back to back."""
    stop, flooded, count = threading.Event(), [0], iter(range(10**9))

    def flood() -> None:
        while not stop.is_set():
            lines = page_lines(study, f"flood-{next(count)}")
            server.post(lines)
            flooded[0] += len(lines)

    threads = [threading.Thread(target=flood) for _ in range(flooders)]
    for thread in threads:
        thread.start()
    waits = [server.post([line]) for line in page_lines(study, "patient")]
    stop.set()
    for thread in threads:
        thread.join()
    return waits, flooded[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--participants", type=int, default=50)
    parser.add_argument("--requests", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        study = build_study(folder)
        per_page = len(page_lines(study, "x"))
        print(f"study: {per_page - 1} answers per participant ({len(sequence_trials(study, 0))} trials)")
        server = Server(folder / "study", folder / "answers.jsonl")
        try:
            rss_start = server.rss_mib()
            answers, wall, cpu = throughput(server, study, args.participants)
            print(
                f"{args.participants} participants at once: {answers} answers in {wall:.1f} s wall = "
                f"{answers / wall:.0f} answers/s; server CPU {1000 * cpu / answers:.2f} s per 1,000 answers"
            )
            waits, flooded = wait_during_flood(server, study)
            print(
                f"one participant during a flood of {flooded} lines (4 threads, 89-line POSTs): worst wait "
                f"{1000 * max(waits):.0f} ms, median {1000 * statistics.median(waits):.0f} ms over {len(waits)} answers"
            )
            extra = 0
            while server.requests < args.requests:
                server.post(page_lines(study, f"top-up-{extra}")[:1])
                extra += 1
            print(
                f"server RSS: {rss_start:.1f} MiB at start, {server.rss_mib():.1f} MiB after {server.requests} requests"
            )
            lines = (folder / "answers.jsonl").read_text().splitlines()
            print(f"answers file: {len(lines)} lines, every one whole: {all(json.loads(x) for x in lines)}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
