"""The terminal UI (textual): play a race (:func:`run_play`) or a daily attempt
(:func:`run_daily`), replay one (:func:`run_replay`), watch one (:func:`run_watch`).

Uses ``shared`` (engine, protocol models) and the SDK; never ``server``.
"""

from client.tui.app import run_daily, run_play, run_replay, run_watch
from client.tui.race import RaceApp, RaceScreen
from client.tui.race_state import DailyRun
from client.tui.replay import ReplayApp, ReplayScreen
from client.tui.watch import WatchApp, WatchScreen

__all__ = [
    "DailyRun",
    "RaceApp",
    "RaceScreen",
    "ReplayApp",
    "ReplayScreen",
    "WatchApp",
    "WatchScreen",
    "run_daily",
    "run_play",
    "run_replay",
    "run_watch",
]
