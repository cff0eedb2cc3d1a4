"""Entry points for the command line: play a race, or replay one that ended."""

from __future__ import annotations

from client.sdk import ArenaClient
from client.tui.race import RaceApp
from client.tui.replay import ReplayApp


async def run_play(client: ArenaClient, race_id: str) -> None:
    """Play ``race_id`` in the terminal until the player quits (ctrl+q).

    ``client`` has said hello and sits in the race; the race may still be open or
    counting down. The app reads the client's events while it runs.
    """
    await RaceApp(client, race_id).run_async()


async def run_replay(client: ArenaClient, race_id: str) -> None:
    """Replay a race that ended (its move log and results are fetched first)."""
    log = await client.move_log(race_id)
    summary = await client.results(race_id)
    names = {standing.player_id: standing.name for standing in summary.standings}
    await ReplayApp(log, names, me=client.player_id).run_async()
