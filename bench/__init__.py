"""Benchmarks: `make bench` (`python -m bench [name ...]`) runs every `bench/<name>.py` with a
`main()`, each in a process of its own. They report figures against targets; they do not fail."""
