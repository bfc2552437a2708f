"""`marple study-server` facing the internet: hostile lines and requests, many clients, a slow client, a full
disk, SIGKILL during a burst, and start-up on a damaged file.

The study here is written by hand (no frames: the server needs only the study's description), so these tests
need no dataset. Servers bind port 0 and report the port they got; nothing waits on a clock for its verdict.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
from pathlib import Path

import pytest
from study_fixtures import KEY, ChildServer, answer, body, participant_lines, session, study_description

from marple.cli.main import main
from marple.study import server as server_module
from marple.study.human import read_responses
from marple.study.server import KEY_HEADER, Limits, StudyServer, make_server, serve_study
from marple.study.trials import StudyError
from marple.study.web import write_study_data


@pytest.fixture()
def folder(tmp_path) -> Path:
    folder = tmp_path / "study"
    (folder / "frames" / "v000").mkdir(parents=True)
    (folder / "app").mkdir()
    (folder / "index.html").write_text("<!DOCTYPE html><title>study</title>")
    (folder / "app" / "study.js").write_text("// the page")
    write_study_data(folder, study_description())
    return folder


# ---- talking to a server -----------------------------------------------------------------------------------
def post(port: int, data: bytes, key: str | None = KEY, path: str = "/answers") -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "text/plain", **({KEY_HEADER: key} if key is not None else {})}
    try:
        conn.request("POST", path, body=data, headers=headers)
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        conn.close()


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection to the server from ``source``: Linux answers on all of 127.0.0.0/8, so a test can play
    clients at different addresses."""
    return socket.create_connection(("127.0.0.1", port), timeout=60, source_address=(source, 0))


def read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def raw(port: int, request: bytes, source: str = "127.0.0.1") -> bytes:
    """Send raw bytes and no more, read the whole reply (the server closes the connection after one request)."""
    with connect(port, source) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        return read_all(sock)


def status_of(reply: bytes) -> int:
    match = re.match(rb"HTTP/1\.[01] (\d{3})", reply)
    assert match, f"no HTTP status in {reply[:80]!r}"
    return int(match.group(1))


class Servers:
    """Servers started in this process: ``serve(out, limits) -> port``; ``serve.started[-1]`` is the last one."""

    def __init__(self, folder: Path, out: Path) -> None:
        self.folder, self.out = folder, out
        self.started: list[StudyServer] = []

    def __call__(self, out: Path | None = None, limits: Limits | None = None) -> int:
        server = make_server(self.folder, out or self.out, port=0, limits=limits or Limits())
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.started.append(server)
        return server.server_address[1]

    def stop(self) -> None:
        for server in self.started:
            server.shutdown()
            server.server_close()


@pytest.fixture()
def serve(folder, tmp_path):
    """Start servers in this process (see :class:`Servers`); all are stopped at the end."""
    servers = Servers(folder, tmp_path / "answers.jsonl")
    yield servers
    servers.stop()


def test_serve_study_tells_where_it_listens_and_stops_cleanly_on_sigterm(folder, tmp_path):
    out = tmp_path / "answers.jsonl"
    told = []

    def client(port: int) -> None:
        try:  # answered only once the server serves, so after its SIGTERM handler is in place
            told.append(post(port, body(*participant_lines("c1", "p1")[:1]))[0])
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # as a service manager stops it

    def ready(server) -> None:
        told.append(server.server_address[1])
        threading.Thread(target=client, args=(server.server_address[1],), daemon=True).start()

    before = signal.getsignal(signal.SIGTERM)
    try:
        serve_study(folder, out, port=0, ready=ready)  # returns once stopped
    finally:
        signal.signal(signal.SIGTERM, before)
    assert told[0] > 0 and told[1] == 200 and len(file_lines(out)) == 1  # what was saved is on disk
    with pytest.raises(ValueError, match="--port must be in 0..65535"):
        serve_study(folder, out, port=70000)


def file_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ---- hostile lines -----------------------------------------------------------------------------------------
HOSTILE = {
    "a bare answer": b'{"type": "answer", "slider": 5}\n',
    "slider true": body(answer("c1", "p1", 1, 0, 0, slider=True)),
    "seq -7": body(answer("c1", "p1", -7, 0, 0)),
    "seq a string": body(answer("c1", "p1", "1", 0, 0)),
    "seq a list": body(answer("c1", "p1", [1], 0, 0)),
    "seq Infinity": body(answer("c1", "p1", 1, 0, 0)).replace(b'"seq": 1', b'"seq": Infinity'),
    "tau NaN": body(answer("c1", "p1", 1, 0, 0)).replace(b'"tau": 0', b'"tau": NaN'),
    "an unknown key": body(answer("c1", "p1", 1, 0, 0, extra=1)),
    "no client": body({k: v for k, v in answer("c1", "p1", 1, 0, 0).items() if k != "client"}),
    "not from the page": body(answer("c1", "p1", 1, 0, 0, source="curl")),
    "deep JSON": b"[" * 5000 + b"]" * 5000 + b"\n",
    "not UTF-8": b'{"type": "answer", "participant": "\xff"}\n',
    # Well-formed lines that do not fit the study or the file (new seq numbers: a seq written before is skipped).
    "an answer without a session": body(answer("c9", "p9", 41, 0, 0)),
    "another participant's answer": body(answer("c1", "p2", 42, 0, 1)),
    "a trial not at its index": body(answer("c1", "p1", 43, 1, 0) | {"trial_index": 0}),
    "a wrong tau": body(answer("c1", "p1", 44, 0, 3) | {"tau": 5}),
    "a wrong horizon": body(answer("c1", "p1", 45, 0, 2) | {"horizon": 99}),
    "a point answered again": body(answer("c1", "p1", 46, 0, 0)),
    "a second session line": body(session("c1", "p1", seq=47)),
    "a session of another study": body(session("c2", "p2", trial_set="ffffffffffffffff")),
    "a session of no sequence": body(session("c2", "p2", sequence=3)),
    "a check the study does not ask": body(
        {"type": "check", "participant": "p1", "check": 0, "expected": "A", "slider": 0, "time": "t"}
        | {"source": "web", "client": "c1", "seq": 48}
    ),
    "a good line with a bad one": body(answer("c1", "p1", 2, 0, 1), answer("c1", "p1", 3, 0, 2, slider=101)),
    "a slider of 400 digits": body(answer("c1", "p1", 49, 0, 1, slider=10**400)),
    "an rt_ms of 400 digits": body(answer("c1", "p1", 50, 0, 1) | {"rt_ms": 10**400}),
    "a seq of 400 digits": body(answer("c1", "p1", 10**400, 0, 1)),
    "a number of 5000 digits": body(answer("c1", "p1", 51, 0, 1)).replace(b'"rt_ms": 800', b'"rt_ms": ' + b"9" * 5000),
}


def test_lines_scoring_would_refuse_get_a_400_and_nothing_is_written(serve, tmp_path):
    out = tmp_path / "answers.jsonl"
    port = serve(out)
    assert post(port, body(session("c1", "p1"), answer("c1", "p1", 1, 0, 0))) == (200, {"saved": 2, "received": 2})
    before = out.read_bytes()
    for what, data in HOSTILE.items():
        status, reply = post(port, data)
        assert status == 400, f"{what}: {status} {reply}"
        assert reply["error"], what
        assert out.read_bytes() == before, f"{what} changed the file"
    assert "slider" in post(port, HOSTILE["slider true"])[1]["error"]
    assert "participant" in post(port, HOSTILE["another participant's answer"])[1]["error"]
    # What was accepted scores: the whole session, with what the page sends again written once.
    lines = participant_lines("c1", "p1")
    assert post(port, body(*lines)) == (200, {"saved": len(lines) - 2, "received": len(lines)})
    assert post(port, body(*lines)) == (200, {"saved": 0, "received": len(lines)})
    assert len(file_lines(out)) == len(lines)
    run = read_responses([out])
    assert len(run.trials) == 2 and run.settings["participants"] == ["p1"]


def test_every_malformed_request_gets_a_4xx_and_no_listing_or_cors(serve, folder, tmp_path):
    port = serve(tmp_path / "answers.jsonl")
    line = body(session("c1", "p1"))
    head = f"POST /answers HTTP/1.1\r\nHost: x\r\n{KEY_HEADER}: {KEY}\r\n".encode()
    many = body(*(answer("c1", "p1", i, 0, 0) for i in range(201)))
    requests = {
        "Content-Length abc": head + b"Content-Length: abc\r\n\r\n" + line,
        "Content-Length -5": head + b"Content-Length: -5\r\n\r\n" + line,
        "no Content-Length": head + b"\r\n" + line,
        "too large": head + b"Content-Length: 999999999\r\n\r\n",
        "chunked": head + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "short body": head + b"Content-Length: 500\r\n\r\n" + line,
        "no key": b"POST /answers HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(line) + line,
        "wrong key": b"POST /answers HTTP/1.1\r\nX-Study-Key: guess\r\nContent-Length: %d\r\n\r\n" % len(line) + line,
        "another path": head.replace(b"/answers", b"/upload") + b"Content-Length: %d\r\n\r\n" % len(line) + line,
        "PUT": b"PUT /answers HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        "DELETE": b"DELETE /index.html HTTP/1.1\r\n\r\n",
        "OPTIONS": b"OPTIONS /answers HTTP/1.1\r\nOrigin: https://evil.example\r\n\r\n",
        "an unknown method": b"BREW /pot HTTP/1.1\r\n\r\n",
        "HTTP/2.0": b"GET /index.html HTTP/2.0\r\n\r\n",
        "garbage": b"\x00\x01\x02 nonsense\r\n\r\n",
        "a folder": b"GET /frames/ HTTP/1.1\r\n\r\n",
        "another folder": b"GET /app/ HTTP/1.1\r\n\r\n",
        "outside the folder": b"GET /../../../../etc/passwd HTTP/1.1\r\n\r\n",
        "too many lines": head + b"Content-Length: %d\r\n\r\n" % len(many) + many,
        "Content-Length \u00b2 (a digit to str.isdigit)": head + b"Content-Length: \xb2\r\n\r\n" + line,  # Latin-1
        "Content-Length of 5000 digits": head + b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n" + line,
        "a NUL in a GET path": b"GET /index.html%00.txt HTTP/1.1\r\n\r\n",
        "a NUL in a HEAD path": b"HEAD /app/%00 HTTP/1.1\r\n\r\n",
        "a lone surrogate in a GET path": b"GET /%ED%A0%80 HTTP/1.1\r\n\r\n",
        "200k-deep JSON": head + b"Content-Length: 400001\r\n\r\n" + b"[" * 200_000 + b"]" * 200_000 + b"\n",
    }
    for what, request in requests.items():
        reply = raw(port, request)
        assert 400 <= status_of(reply) < 500, f"{what}: {reply[:100]!r}"
        assert b"Access-Control-Allow-Origin" not in reply, what
        assert b"Index of" not in reply and b"study.js" not in reply, what
    page = raw(port, b"GET /index.html HTTP/1.1\r\nOrigin: https://evil.example\r\n\r\n")
    assert status_of(page) == 200 and b"Access-Control-Allow-Origin" not in page
    assert b"X-Content-Type-Options: nosniff" in page
    assert not (tmp_path / "answers.jsonl").read_bytes()  # nothing written


def test_concurrent_clients_sending_again_write_each_line_once_and_score(serve, tmp_path):
    out = tmp_path / "answers.jsonl"
    port = serve(out)
    errors = []

    def participant(k: int) -> None:
        lines = participant_lines(f"client{k}", f"p{k}")
        size = 1 + k % 5  # batches of 1 to 5 lines; every batch is sent twice, as a page would after a lost reply
        for start in range(0, len(lines), size):
            for _ in range(2):
                status, reply = post(port, body(*lines[: start + size]))
                if status != 200:
                    errors.append((k, status, reply))

    threads = [threading.Thread(target=participant, args=(k,)) for k in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    saved = file_lines(out)
    assert sorted((e["client"], e["seq"]) for e in saved) == sorted(
        (f"client{k}", s) for k in range(20) for s in range(23)
    )
    for k in range(20):  # each page's lines in its order
        assert [e["seq"] for e in saved if e["client"] == f"client{k}"] == list(range(23))
    run = read_responses([out])
    assert len(run.trials) == 40 and len(run.settings["participants"]) == 20


def trickle(sock: socket.socket, stop: threading.Event) -> None:
    """Send a header a byte at a time, a byte every 0.1 s, until ``stop`` or the server cuts the connection."""
    with contextlib.suppress(OSError):
        for byte in itertools.cycle(b"X-Slow: 1\r\n"):
            if stop.wait(0.1):
                return
            sock.send(bytes([byte]))


def read_until_cut(sock: socket.socket) -> bytes:
    """What the server sent before it closed the connection (a reset counts as closed: the server drops unread
    bytes of a client it cuts, and the kernel may then answer with a reset)."""
    try:
        return read_all(sock)
    except ConnectionResetError:
        return b""


def test_a_slow_client_is_cut_off_and_does_not_hold_up_others(serve, tmp_path):
    out = tmp_path / "answers.jsonl"
    # The deadline cuts the trickling client, whose every read is quick (the read timeout never fires). It is the
    # same for every connection, so it leaves the POST that must succeed 3 s, room on a loaded machine for what
    # takes milliseconds, and the test still takes only about 3 s.
    port = serve(out, Limits(socket_timeout=30.0, request_deadline=3.0))
    slow = connect(port)
    slow.sendall(b"POST /answers HTTP/1.1\r\nContent-Length: 1000\r\n")
    stop = threading.Event()
    trickling = threading.Thread(target=trickle, args=(slow, stop), daemon=True)
    trickling.start()
    others = [connect(port) for _ in range(5)]  # idle, not even a line
    try:
        assert post(port, body(session("c1", "p1")))[0] == 200  # served while the slow ones hang
        cut = read_until_cut(slow)  # at its deadline, although it never stopped sending
        assert cut == b"" or status_of(cut) == 408
        for idle in others:
            assert idle.recv(1024) == b""
    finally:
        stop.set()
        trickling.join()
        slow.close()
        for idle in others:
            idle.close()
    assert len(file_lines(out)) == 1


def test_connections_past_the_cap_get_a_503_at_once_and_the_server_recovers(serve, tmp_path):
    port = serve(tmp_path / "answers.jsonl", Limits(max_connections=2))
    idle = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(2)]
    try:
        reply = raw(port, b"GET /index.html HTTP/1.1\r\n\r\n")  # the idle ones hold every slot
        assert status_of(reply) == 503 and b"Retry-After: 1" in reply
    finally:
        for sock in idle:
            sock.close()
    for _ in range(1000):  # the server notices the closed connections and frees their slots
        if status_of(raw(port, b"GET /index.html HTTP/1.1\r\n\r\n")) == 200:
            break
    else:
        raise AssertionError("the server did not recover its connection slots")


GET = b"GET /index.html HTTP/1.1\r\n\r\n"


def test_one_address_holding_its_share_of_connections_cannot_lock_out_another(serve, tmp_path):
    # Long timeouts: the idle connections must stay open for as long as the test needs them, however slow it runs.
    limits = Limits(max_connections=4, max_per_address=3, socket_timeout=60.0, request_deadline=60.0)
    port = serve(tmp_path / "answers.jsonl", limits)
    hog = [connect(port) for _ in range(3)]  # connect, send nothing: its whole share
    try:
        past_share = connect(port)  # one slot is still free, but not for this address
        with past_share:
            reply = read_all(past_share)  # the server accepts connections in order: the hog's 3 are counted first
        assert status_of(reply) == 503 and b"Retry-After: 1" in reply
        assert status_of(raw(port, GET, source="127.0.0.2")) == 200  # another address gets the free slot
    finally:
        for sock in hog:
            sock.close()
    for _ in range(1000):  # the server notices the closed connections and gives the address its share back
        if status_of(raw(port, GET)) == 200:
            break
    else:
        raise AssertionError("the server did not give the address its connections back")


def test_without_a_per_address_cap_one_address_may_take_every_slot(serve, tmp_path):
    # Behind a reverse proxy every connection comes from the proxy: --max-per-address 0 lifts the cap.
    limits = Limits(max_connections=4, max_per_address=0, socket_timeout=60.0, request_deadline=60.0)
    port = serve(tmp_path / "answers.jsonl", limits)
    idle = [connect(port) for _ in range(3)]
    try:
        assert status_of(raw(port, GET)) == 200  # the fourth slot, from the same address
    finally:
        for sock in idle:
            sock.close()


def test_the_command_line_sets_the_per_address_cap_and_refuses_a_negative_one(folder, tmp_path, monkeypatch, capsys):
    out = tmp_path / "answers.jsonl"
    with pytest.raises(SystemExit) as refused:
        main(["study-server", str(folder), "--out", str(out), "--max-per-address", "-1"])
    assert refused.value.code == 2 and "argument --max-per-address: expected an integer >= 0" in capsys.readouterr().err
    assert not out.exists()
    asked: list[Limits] = []

    def no_server(folder: Path, out: Path, host: str, port: int, limits: Limits) -> None:
        asked.append(limits)  # what the server would have been started with
        raise StudyError("not started")

    monkeypatch.setattr(server_module, "make_server", no_server)
    for options in (["--max-per-address", "0"], []):
        main(["study-server", str(folder), "--out", str(out), *options])
    assert [limits.max_per_address for limits in asked] == [0, Limits().max_per_address]


def listen_backlog(sock: socket.socket) -> int:
    """The backlog the kernel gave a listening socket: Linux reports it in tcp_info's ``tcpi_sacked``
    (a 32-bit field 28 bytes in; ``ss -lnt`` shows it as Send-Q)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return struct.unpack_from("I", info, 28)[0]


def test_the_server_listens_with_the_configured_backlog(serve, tmp_path):
    assert Limits().backlog >= 1024  # a burst of 200 clients at once queues, not resets (the old backlog was 5)
    serve(tmp_path / "answers.jsonl")
    serve(tmp_path / "other.jsonl", Limits(backlog=77))
    default, small = serve.started
    assert (default.request_queue_size, small.request_queue_size) == (Limits().backlog, 77)
    if sys.platform == "linux":  # what listen() was really given (the kernel caps it at net.core.somaxconn)
        somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
        assert listen_backlog(default.socket) == min(Limits().backlog, somaxconn)
        assert listen_backlog(small.socket) == 77


def test_answers_of_concurrent_requests_share_fsyncs_and_every_acknowledged_line_is_on_disk(
    serve, tmp_path, monkeypatch
):
    out = tmp_path / "answers.jsonl"
    port = serve(out)
    sink = serve.started[0].sink
    requests = 20
    queued = threading.Semaphore(0)  # one release per request that reached the writer's queue
    put = sink._queue.put

    def counting_put(item, *args, **kwargs) -> None:
        put(item, *args, **kwargs)
        queued.release()

    commits: list[int] = []
    fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        if fd == sink._fd:
            if not commits:  # hold the first commit until every request is queued: the rest must share one
                all(queued.acquire(timeout=60) for _ in range(requests))
            commits.append(fd)
        fsync(fd)

    monkeypatch.setattr(sink._queue, "put", counting_put)
    monkeypatch.setattr(os, "fsync", counting_fsync)
    pages = [participant_lines(f"c{k}", f"p{k}")[:4] for k in range(requests)]  # a session line and 3 answers
    replies: list[tuple[int, dict]] = []

    def page(lines: list[dict]) -> None:
        replies.append(post(port, body(*lines)))

    threads = [threading.Thread(target=page, args=(lines,)) for lines in pages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert replies == [(200, {"saved": 4, "received": 4})] * requests
    assert 1 <= len(commits) <= 2 < requests  # the first request's commit, then one for all the others
    assert sorted((e["client"], e["seq"]) for e in file_lines(out)) == sorted(
        (line["client"], line["seq"]) for lines in pages for line in lines
    )


def test_a_full_disk_acknowledges_nothing_it_did_not_save_and_leaves_no_partial_line(folder, tmp_path):
    out = tmp_path / "answers.jsonl"
    lines = participant_lines("c1", "p1")
    server = ChildServer(folder, out)
    assert post(server.port, body(*lines[:3]))[0] == 200
    server.stop()
    room = len(body(lines[3])) + 10  # the file may grow by one answer line, not two
    server = ChildServer(folder, out, file_size_limit=out.stat().st_size + room)
    acknowledged = 3
    try:
        assert post(server.port, body(lines[3]))[0] == 200
        acknowledged += 1
        for batch in ([lines[4]], lines[4:9], [lines[5]]):
            status, reply = post(server.port, body(*batch))
            assert status == 503 and "not saved" in reply["error"]
            text = out.read_text()
            assert text.endswith("\n") and len(file_lines(out)) == acknowledged  # whole lines, all acknowledged
    finally:
        server.stop()
    server = ChildServer(folder, out)  # space again: the page sends what was not acknowledged
    try:
        assert post(server.port, body(*lines)) == (200, {"saved": len(lines) - acknowledged, "received": len(lines)})
    finally:
        server.stop()
    assert [e["seq"] for e in file_lines(out)] == list(range(len(lines)))
    assert len(read_responses([out]).trials) == 2


def test_sigkill_during_a_burst_loses_no_acknowledged_line(folder, tmp_path):
    out = tmp_path / "answers.jsonl"
    server = ChildServer(folder, out)
    acknowledged: set[tuple[str, int]] = set()
    lock, enough = threading.Lock(), threading.Event()

    def participant(k: int) -> None:
        lines = participant_lines(f"c{k}", f"p{k}")
        for n in range(len(lines)):
            try:
                status, _ = post(server.port, body(*lines[: n + 1]))
            except (OSError, http.client.HTTPException):
                return  # the server is gone
            if status == 200:
                with lock:
                    acknowledged.update((f"c{k}", s) for s in range(n + 1))
                    if len(acknowledged) >= 60:
                        enough.set()

    threads = [threading.Thread(target=participant, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    assert enough.wait(120)
    server.kill()  # mid-burst: other posts are in flight
    for thread in threads:
        thread.join()
    with lock:
        acked = set(acknowledged)
    on_disk = out.read_bytes().split(b"\n")
    whole = [json.loads(line) for line in on_disk[:-1]]  # every line but a last one cut short is whole
    assert acked <= {(e["client"], e["seq"]) for e in whole}
    server = ChildServer(folder, out)  # start-up drops a cut last line; the pages send everything again
    try:
        for k in range(8):
            assert post(server.port, body(*participant_lines(f"c{k}", f"p{k}")))[0] == 200
    finally:
        server.stop()
    saved = file_lines(out)
    assert sorted((e["client"], e["seq"]) for e in saved) == sorted((f"c{k}", s) for k in range(8) for s in range(23))
    assert len(read_responses([out]).trials) == 16


def test_start_up_keeps_a_last_line_without_newline_and_names_a_damaged_file(folder, serve, tmp_path):
    out = tmp_path / "answers.jsonl"
    lines = participant_lines("c1", "p1")
    out.write_text(body(*lines[:3]).decode().rstrip("\n"))  # a valid last line without its newline
    port = serve(out)
    assert post(port, body(*lines[:5])) == (200, {"saved": 2, "received": 5})
    assert [e["seq"] for e in file_lines(out)] == [0, 1, 2, 3, 4]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(body(lines[0]).decode() + '{"type": "answ\n' + body(lines[1]).decode())
    with pytest.raises(StudyError, match=rf"{re.escape(str(damaged))}: line 2"):
        make_server(folder, damaged, port=0)
    refused = tmp_path / "refused.jsonl"
    refused.write_text(body(lines[0]).decode() + '{"type": "answer"}\n')
    with pytest.raises(StudyError, match=rf"{re.escape(str(refused))}: line 2"):
        make_server(folder, refused, port=0)
