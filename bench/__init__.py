"""Benchmarks: each module runs on its own and prints a table (see the Makefile)."""
