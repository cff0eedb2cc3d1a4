"""The terminal UI (textual): play a race (:func:`run_play`) or a daily attempt
(:func:`run_daily`), replay one (:func:`run_replay`).

Uses ``shared`` (engine, protocol models) and the SDK; never ``server``.
"""

from client.tui.app import run_daily, run_play, run_replay
from client.tui.race import RaceApp, RaceScreen
from client.tui.race_state import DailyRun
from client.tui.replay import ReplayApp, ReplayScreen

__all__ = [
    "DailyRun",
    "RaceApp",
    "RaceScreen",
    "ReplayApp",
    "ReplayScreen",
    "run_daily",
    "run_play",
    "run_replay",
]
