"""A prelude module of worker_probe.py: imported afresh by each script the worker runs."""

runs: list[str] = []
