"""`make run`: starts everything that makes up the system on this machine, and says where it is.

For now that is the sandbox of the Assurance service with its demo data; the portal and its
worker join it as they are built. Stops everything on Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from sandbox.demo.accounts import ACCOUNTS

ROOT = Path(__file__).resolve().parent.parent


def wait_until_up(url: str, process: subprocess.Popen, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            urllib.request.urlopen(url, timeout=1)
            return True
        except OSError:
            time.sleep(0.3)
    return False


def main() -> int:
    port = int(os.environ.get("SANDBOX_PORT", "8001"))
    sandbox_url = f"http://127.0.0.1:{port}/"
    sandbox = subprocess.Popen(
        [sys.executable, "-m", "scripts.sandbox", "--port", str(port), "--quiet"], cwd=ROOT
    )
    try:
        if not wait_until_up(sandbox_url, sandbox):
            print("The sandbox did not start; see the messages above.", file=sys.stderr)
            return 1
        print()
        print(f"  Assurance service sandbox:  {sandbox_url}")
        print(f"  Its admin:                  {sandbox_url}admin/")
        print()
        print("  Demo accounts (username / password):")
        for account in ACCOUNTS:
            print(f"    {account['username']:<10} {account['password']}")
        print()
        print("  Press Ctrl-C to stop.", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        return sandbox.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if sandbox.poll() is None:
            sandbox.terminate()
            sandbox.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
