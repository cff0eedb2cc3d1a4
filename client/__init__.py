"""Clients of the race server: the async SDK and programs built on it."""
