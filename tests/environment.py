"""The environment of the test run, set before pytest-django reads the portal's settings
(pyproject.toml loads this module as a plugin, `-p tests.environment`, ahead of conftest.py
files, which come too late): the suite, and every process it starts, runs as a development
command does, where the portal's development secret key is allowed."""

import os

os.environ["PORTAL_DEVELOPMENT"] = "true"
