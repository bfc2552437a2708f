"""Fresh processes for tests, cheaply: a fork server and its client, :class:`FreshProcesses`.

The server, ``python tests/fresh_process.py MODULE...``, imports the MODULEs named on its command line (heavy
third-party libraries, so that each child need not), then reads one JSON request a line from stdin,
``{"code": "...", "cwd": "..."}``, runs the code in a child forked for it, in ``cwd``, and answers one JSON line
on stdout: ``{"ok": bool, "error": traceback or "", "cpu_s": the child's CPU seconds}``. A child is as fresh as
the server: it has imported nothing of ours, and its code runs as ``__main__``.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

PRELOAD = ("numpy", "networkx", "torch", "lightning", "PIL.Image", "soundfile")
"""Third-party libraries that import neither our packages nor Gymnasium: what a child need not import itself."""

OURS = ("marple_gym", "marple_agents", "marple_eval", "marple", "gymnasium")
FRESH_CHECK = (
    "import sys as _sys\n"
    f"_ours = sorted(m for m in _sys.modules if m.split('.')[0] in {OURS!r})\n"
    "assert not _ours, f'the process is not fresh: {_ours[:5]}'\n"
    "del _sys, _ours\n"
)


class FreshProcesses:
    """Runs code in fresh processes forked by this file's server (one server per instance)."""

    def __init__(self, preload: tuple[str, ...] = PRELOAD) -> None:
        server = [sys.executable, __file__, *preload]
        self.server = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, code: str, cwd: str | os.PathLike | None = None) -> float:
        """Run ``code`` in a fresh process (checked to be fresh first) and return its CPU seconds;
        fail with the child's traceback if it raised."""
        request = {"code": FRESH_CHECK + code, "cwd": str(cwd or Path.cwd())}
        self.server.stdin.write(json.dumps(request) + "\n")
        self.server.stdin.flush()
        answer = json.loads(self.server.stdout.readline())
        assert answer["ok"], answer["error"]
        return answer["cpu_s"]

    def close(self) -> None:
        self.server.stdin.close()
        self.server.wait()


def run_marple(
    args: list[str], cwd: str | os.PathLike, *, blocked: tuple[str, ...] = (), unset: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """``marple ARGS`` in a new Python process in ``cwd``, with the modules ``blocked`` unimportable (as if not
    installed) and the environment variables ``unset`` removed; its exit status and output, within two minutes
    (a command that would wait for ever fails the test instead of hanging it)."""
    code = "".join(f"sys.modules[{module!r}] = None\n" for module in blocked)
    code = f"import sys\n{code}from marple.cli.main import main\nsys.exit(main({args!r}))"
    env = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def run_in_child(code: str, cwd: str) -> dict:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the code, send back the traceback (empty for success), never return
        os.close(read)
        os.chdir(cwd)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # what the code prints must not mix with the answers on stdout
        try:
            exec(compile(code, "<fresh process>", "exec"), {"__name__": "__main__"})
            error = ""
        except BaseException:  # noqa: BLE001 - the child reports whatever its code raised, sys.exit included
            error = traceback.format_exc()
        os.write(write, error.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        error = pipe.read().decode()
    _, status, usage = os.wait4(pid, 0)
    if not error and os.waitstatus_to_exitcode(status) != 0:
        error = f"the child died with status {os.waitstatus_to_exitcode(status)}"
    return {"ok": not error, "error": error, "cpu_s": usage.ru_utime + usage.ru_stime}


def main() -> None:
    for module in sys.argv[1:]:
        importlib.import_module(module)
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps(run_in_child(request["code"], request["cwd"])), flush=True)


if __name__ == "__main__":
    main()
