"""Read runs tables from files."""

from passk_lab.io.tables import read_runs

__all__ = ["read_runs"]
