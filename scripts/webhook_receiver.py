"""`make run`'s receiver of webhooks: a small HTTP server on loopback that keeps each POST it is
sent (its path, headers and body, as a JSON file in a folder: the newest KEPT) and answers 204,
so that a person sees the portal's events arrive, at /development/webhooks/ beside the
development mailbox. For development only: it checks nothing, and keeps what anyone sends.

    python -m scripts.webhook_receiver --port 8025 --folder var/webhooks
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

KEPT = 200
LARGEST = 1024 * 1024


def handler_for(folder: Path) -> type[BaseHTTPRequestHandler]:
    class Keeping(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = min(int(self.headers.get("Content-Length") or 0), LARGEST)
            body = self.rfile.read(length)
            kept = {
                "received": datetime.now(UTC).isoformat(),
                "path": self.path,
                "headers": dict(self.headers.items()),
                "body": body.decode("utf-8", errors="replace"),
            }
            name = f"{time.time_ns()}.json"
            (folder / f".{name}").write_text(json.dumps(kept), encoding="utf-8")
            (folder / f".{name}").rename(folder / name)  # whole, or not there
            for old in sorted(folder.glob("*.json"))[:-KEPT]:
                old.unlink(missing_ok=True)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--folder", type=Path, required=True)
    arguments = parser.parse_args()
    arguments.folder.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), handler_for(arguments.folder))
    server.serve_forever()


if __name__ == "__main__":
    main()
