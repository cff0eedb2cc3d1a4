"""The terminal UI (textual): play a race (:func:`run_play`), replay one (:func:`run_replay`).

Uses ``shared`` (engine, protocol models) and the SDK; never ``server``.
"""

from client.tui.app import run_play, run_replay
from client.tui.race import RaceApp, RaceScreen
from client.tui.replay import ReplayApp, ReplayScreen

__all__ = ["RaceApp", "RaceScreen", "ReplayApp", "ReplayScreen", "run_play", "run_replay"]
