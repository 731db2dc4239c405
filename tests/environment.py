"""The environment of the test run, set before pytest-django reads the portal's settings
(pyproject.toml loads this module as a plugin, `-p tests.environment`, ahead of conftest.py
files, which come too late): the suite, and every process it starts, runs as a development
command does, where the portal's development secret key is allowed; and, as `make run` does,
it uses PostgreSQL and Redis when DATABASE_URL and REDIS_URL name them or when they answer on
their usual local ports (the tests that need a worker in another process, or the deployment,
need both), and SQLite otherwise."""

import os

from scripts.run import choose_database, choose_redis

os.environ["PORTAL_DEVELOPMENT"] = "true"
for name, (url, _how) in (("DATABASE_URL", choose_database()), ("REDIS_URL", choose_redis())):
    if url:
        os.environ[name] = url
