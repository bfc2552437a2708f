"""``marple study-server``: serve a web study folder and append the answers its pages send to a JSON Lines file."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from marple.options import nonnegative_int
from marple.study.server import Limits, serve_study


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "study-server",
        help="serve a web study folder and append its answers to a JSON Lines file",
        description=(
            "Serve a folder built by `marple study-web` over HTTP and accept answers POSTed to /answers "
            "(build with --post answers). Every answer line is appended to --out and forced to disk before the "
            "page is told it is saved; a page resends what was not acknowledged, so a restart loses nothing "
            "and no line is written twice. For a public study put it behind an HTTPS reverse proxy."
        ),
    )
    parser.add_argument("folder", help="study folder built by `marple study-web`")
    parser.add_argument("--out", required=True, help="responses file (.jsonl) to append to")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free port)")
    parser.add_argument(
        "--max-per-address",
        type=nonnegative_int,
        default=None,
        metavar="N",
        help="open connections one client address may hold; more get a 503 (default: 32; 0: no cap, for a server "
        "behind a reverse proxy, where every connection comes from the proxy)",
    )
    parser.set_defaults(run=run_server)


def run_server(args: argparse.Namespace) -> int:
    def ready(server) -> None:
        host, port = server.server_address[:2]
        print(f"serving {args.folder} at http://{host}:{port}/ ; answers go to {args.out} (Ctrl-C stops)", flush=True)
        if server.key is None:
            print("note: this study was built without --post: its pages send no answers here", file=sys.stderr)

    limits = Limits()
    if args.max_per_address is not None:  # the default lives in Limits, read only when the server starts
        limits = dataclasses.replace(limits, max_per_address=args.max_per_address)
    serve_study(args.folder, args.out, args.host, args.port, ready, limits)
    return 0
