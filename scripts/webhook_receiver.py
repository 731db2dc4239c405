"""`make run`'s receiver of webhooks: a small HTTP server on loopback that keeps each POST it is
sent (its path, headers and body, as a JSON file in a folder: the newest `--keep`) and answers
204, so that a person sees the portal's events arrive, at /development/webhooks/ beside the
development mailbox. For development only: it checks nothing, and keeps what anyone sends.

The soak's receiver (soak/stack.py) misbehaves now and then: `--fail-one-in N` answers 500 to
one POST in N at random (keeping nothing of it), `--late-one-in N` answers one in N (kept) only
after `--late-seconds`, later than the portal waits.

    python -m scripts.webhook_receiver --port 8025 --folder var/webhooks
"""

from __future__ import annotations

import argparse
import json
import random
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

LARGEST = 1024 * 1024


def handler_for(folder: Path, arguments: argparse.Namespace) -> type[BaseHTTPRequestHandler]:
    chance = random.Random()

    def one_in(n: int) -> bool:
        return n > 0 and chance.randrange(n) == 0

    class Keeping(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = min(int(self.headers.get("Content-Length") or 0), LARGEST)
            body = self.rfile.read(length)
            if one_in(arguments.fail_one_in):
                self.send_response(500)
                self.end_headers()
                return
            if one_in(arguments.late_one_in):
                time.sleep(arguments.late_seconds)
            keep(folder, self.path, dict(self.headers.items()), body, arguments.keep)
            self.send_response(204)
            self.end_headers()

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"make run's webhook receiver: POST events here.\n")

        def log_message(self, format: str, *args: object) -> None:
            return

    return Keeping


def keep(folder: Path, path: str, headers: dict[str, str], body: bytes, most: int) -> None:
    kept = {"received": datetime.now(UTC).isoformat(), "path": path, "headers": headers,
            "body": body.decode("utf-8", errors="replace")}  # fmt: skip
    name = f"{time.time_ns()}.json"
    (folder / f".{name}").write_text(json.dumps(kept), encoding="utf-8")
    (folder / f".{name}").rename(folder / name)  # whole, or not there
    for old in sorted(folder.glob("*.json"))[:-most]:
        old.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--keep", type=int, default=200, help="how many are kept, the newest")
    parser.add_argument("--fail-one-in", type=int, default=0)
    parser.add_argument("--late-one-in", type=int, default=0)
    parser.add_argument("--late-seconds", type=float, default=20)
    arguments = parser.parse_args()
    arguments.folder.mkdir(parents=True, exist_ok=True)
    handler = handler_for(arguments.folder, arguments)
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
