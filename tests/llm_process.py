"""The test chat-completions server (``llm_server.py``) as a process a test starts and stops."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from paths import TESTS

SERVER = TESTS / "llm_server.py"


class Server:
    """A chat-completions server process and the requests it received."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.log = tmp_path / f"requests-{len(list(tmp_path.glob('requests-*')))}.jsonl"
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--log", str(self.log), *args], stdout=subprocess.PIPE, text=True
        )
        self.url = f"http://127.0.0.1:{self.proc.stdout.readline().strip()}/v1"

    def requests(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.is_file() else []

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
