"""`make manage ARGS="..."`: a manage.py command against the databases `make run` chooses.

`make run` uses the local PostgreSQL and Redis when they answer and no DATABASE_URL or
REDIS_URL is set; plain `python manage.py` would use SQLite then. This runs the command with
the same choice and the same environment, for example
`make manage ARGS="grant_staff grower --superuser"`.
"""

import os
import subprocess
import sys

from scripts.run import ROOT, choose_database, choose_redis, environment


def main() -> int:
    database, _ = choose_database()
    redis, _ = choose_redis()
    env = environment(database, redis, int(os.environ.get("SANDBOX_PORT", "8001")))
    command = [sys.executable, "manage.py", *sys.argv[1:]]
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
