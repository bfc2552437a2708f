"""A tiny OpenAI-compatible chat-completions server for the LLM tests (run as its own process).

It prints its port on the first line of stdout, logs every request (headers
and body) as a JSON line, and can fail its first requests, leave them
unanswered, drip them a byte at a time without end, answer them with given
bodies (any bytes), or refuse a key. What it does depends on the request count
only, never on the clock.

For the harnesses it also answers ``/v1/completions`` (generation, and log-likelihoods with ``echo``) and the
tokenizer endpoints lm-evaluation-harness's remote tokenizer asks (``/tokenizer_info``, ``/tokenize``,
``/detokenize``), as a model whose tokens are the text's characters and whose log-probability of a character is
:func:`logprob`: a fixed rule, so a test knows which choice it prefers. With ``--top-logprobs`` a chat request
that asks for log-probabilities gets those first-token alternatives, in OpenAI's form (as llama.cpp's server
gives them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def logprob(token: int) -> float:
    """The fake model's log-probability of a character (its code point): lower letters later in the alphabet."""
    return -0.01 * (token % 97) - 0.1


def tokens_of(prompt) -> list[int]:
    return [ord(c) for c in prompt] if isinstance(prompt, str) else list(prompt)


def completion_choice(index: int, prompt, body: dict, answer: str) -> dict:
    """A completions choice: the echoed prompt's log-probabilities and one more token, or a generated ``answer``."""
    if not body.get("echo"):
        return {"index": index, "text": answer, "finish_reason": "stop", "logprobs": None}
    tokens = tokens_of(prompt) + [ord(" ")]
    scores = [None] + [logprob(t) for t in tokens[1:]]
    top = [None] + [{chr(t): logprob(t)} for t in tokens[1:]]
    text = "".join(chr(t) for t in tokens)
    logprobs = {"tokens": [chr(t) for t in tokens], "token_logprobs": scores, "top_logprobs": top}
    return {"index": index, "text": text, "finish_reason": "length", "logprobs": logprobs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True, help="append each request here as a JSON line")
    parser.add_argument("--answers", default='["Reasoning: hm.\\nAnswer: 30"]', help="JSON list of replies, cycled")
    parser.add_argument("--fail", type=int, default=0, help="answer the first N requests with --fail-status")
    parser.add_argument("--fail-status", type=int, default=503)
    parser.add_argument("--retry-after", default=None, help="send this Retry-After header with the failures")
    parser.add_argument("--hang", type=int, default=0, help="never answer the first N requests (the client times out)")
    parser.add_argument("--key", default=None, help="refuse requests without this bearer key (401)")
    parser.add_argument("--max-choices", type=int, default=None, help="return at most this many choices")
    parser.add_argument(
        "--bodies",
        default="[]",
        help="JSON list of 200 bodies for the first requests after --fail (Latin-1: any bytes)",
    )
    parser.add_argument("--drip", type=int, default=0, help="drip the first N replies a byte at a time, without end")
    parser.add_argument("--no-length", action="store_true", help="send no Content-Length (the reply ends at close)")
    parser.add_argument(
        "--top-logprobs", default=None, help="JSON {token: logprob}: a chat request asking for logprobs gets these"
    )
    args = parser.parse_args()
    bodies = [b.encode("latin-1") for b in json.loads(args.bodies)]
    answers = itertools.cycle(json.loads(args.answers))
    count = itertools.count()
    arrivals = itertools.count()
    never = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_) -> None:  # keep stderr quiet
            pass

        def _send(self, status: int, payload: dict | bytes, headers: dict | None = None) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if not args.no_length:
                self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path != "/tokenizer_info":
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            self._send(200, {"eos_token": "\x03", "bos_token": None, "pad_token": None, "chat_template": None})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with open(args.log, "a") as f:
                f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization"), "body": body}) + "\n")
            if self.path == "/tokenize":
                return self._send(200, {"tokens": tokens_of(body["prompt"])})
            if self.path == "/detokenize":
                return self._send(200, {"prompt": "".join(chr(t) for t in body["tokens"])})
            if self.path == "/v1/completions":
                prompts = body["prompt"]
                batch = (
                    prompts if isinstance(prompts, list) and prompts and not isinstance(prompts[0], int) else [prompts]
                )
                choices = [completion_choice(i, p, body, next(answers)) for i, p in enumerate(batch)]
                return self._send(
                    200, {"id": "x", "object": "text_completion", "model": body.get("model"), "choices": choices}
                )
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            arrival = next(arrivals)
            if arrival < args.hang:
                never.wait()  # held open until the server exits: the client's timeout, whatever it is, runs out
                return
            if arrival < args.drip:
                return self._drip()
            if args.key and self.headers.get("Authorization") != f"Bearer {args.key}":
                return self._send(401, {"error": {"message": "Incorrect API key provided"}})
            answered = next(count)
            if answered < args.fail:
                headers = {"Retry-After": args.retry_after} if args.retry_after is not None else {}
                return self._send(args.fail_status, {"error": {"message": "try later"}}, headers)
            if answered - args.fail < len(bodies):
                return self._send(200, bodies[answered - args.fail])
            n = body.get("n", 1) if args.max_choices is None else min(body.get("n", 1), args.max_choices)
            prompt = sum(len(c if isinstance(c := m["content"], str) else json.dumps(c)) for m in body["messages"]) // 4
            choices = [
                {"index": i, "message": {"role": "assistant", "content": next(answers)}, "finish_reason": "stop"}
                for i in range(n)
            ]
            if body.get("logprobs") and args.top_logprobs is not None:
                top = [{"token": t, "logprob": v, "bytes": None} for t, v in json.loads(args.top_logprobs).items()]
                first = {"token": top[0]["token"], "logprob": top[0]["logprob"], "bytes": None, "top_logprobs": top}
                choices = [{**c, "logprobs": {"content": [first], "refusal": None}} for c in choices]
            usage = {"prompt_tokens": prompt, "completion_tokens": 7 * n, "total_tokens": prompt + 7 * n}
            reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "m")}
            self._send(200, {**reply, "choices": choices, "usage": usage})

        def _drip(self) -> None:
            """A reply without a length, a byte at a time, its JSON padded with spaces until the client hangs up:
            every read gets a byte in time, so only a bound on the whole request ends it."""
            start = b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"choices": ['
            try:
                for byte in itertools.chain(start, itertools.repeat(ord(" "))):
                    self.wfile.write(bytes([byte]))
                    time.sleep(0.01)
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True  # the hanging handlers do not keep the process alive
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
