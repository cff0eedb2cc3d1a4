"""Entry points for the command line: play a race or a daily attempt, replay a race
that ended, or watch one being played."""

from __future__ import annotations

from collections.abc import Callable

from client.sdk import ArenaClient
from client.suggestions import player_options, said_lines
from client.tui.race import RaceApp, default_join_command
from client.tui.race_state import DailyRun
from client.tui.replay import ReplayApp, served_timeline
from client.tui.watch import WatchApp
from shared.protocol import DailyStarted


async def run_play(
    client: ArenaClient,
    race_id: str,
    daily: DailyRun | None = None,
    join_command: Callable[[str], str] = default_join_command,
    resumed: str = "",
) -> None:
    """Play ``race_id`` in the terminal until the player quits (ctrl+q); with ``daily``
    (its ``date`` known), a daily attempt that had started already. The lobby's status
    line gives ``join_command(code)``: what friends type to join. ``resumed`` (a race
    the player was still in, opened instead of the one asked for) opens the status line.

    ``client`` has said hello and sits in the race; the race may still be open or
    counting down. The app reads the client's events while it runs. In the lobby of an
    open race ``r`` (or enter) says ready, and the app says it by itself once every seat is
    taken. Quitting a race that is still open leaves it (a client that was killed instead
    comes back to it); quitting any other race prints how to come back to it, or to its
    replay.
    """
    app = RaceApp(
        client,
        race_id,
        daily=daily,
        ready_when_full=True,
        join_command=join_command,
        options=_options(client),
        resumed=resumed,
    )
    await app.run_async()
    await app.leave_if_open()
    _part(app)  # the screen is gone: this stays in the terminal


async def run_daily(
    client: ArenaClient, started: DailyStarted, practice: bool = False, resumed: str = ""
) -> None:
    """Play the daily attempt ``started`` (``ArenaClient.start_daily``'s reply: a race of
    one, running already) until the player quits; ``p`` practises it after the end.
    Quitting a run under way prints how to come back to it, one over how to replay it
    (now, or when its seed comes out). ``resumed`` (an attempt still on) opens the status line."""
    daily = DailyRun(started.race.game, started.date, scored=started.scored, practice=practice)
    app = RaceApp(client, started.race.race_id, daily=daily, options=_options(client), resumed=resumed)
    await app.run_async()
    _part(app)  # how to come back to it, or to replay it


def _options(client: ArenaClient) -> Callable[[], str]:
    """What gives the options the parting note's commands need to come back to the same
    server as the same player (``--server``, ``--name``, or ""), asked when the note is
    written: under the name the player has then (renamed mid-race or not)."""
    return lambda: "" if client.url is None else player_options(client.url, client.name)


def parting_text(app: RaceApp) -> str | None:
    """The app's parting note in lines of at most 80 columns (None: none)."""
    note = app.parting_note()
    return None if note is None else "\n".join(said_lines(note))


def _part(app: RaceApp) -> None:
    text = parting_text(app)
    if text is not None:
        print(text)


async def replay_app(client: ArenaClient, race_id: str) -> ReplayApp:
    """The replay of a race that ended (its move log and results are fetched first). A
    daily attempt's log has no seed before its day is closed: its player (the only one who
    may read it then) replays it from the server's views, as the browser does."""
    log = await client.move_log(race_id)
    summary = await client.results(race_id)
    names = {standing.player_id: standing.name for standing in summary.standings}
    served = []
    if log.seed is None:
        served = [await served_timeline(client, race_id, s.player_id) for s in summary.standings]
    return ReplayApp(log, names, me=client.player_id, started_at=summary.started_at, served=served)


async def run_replay(client: ArenaClient, race_id: str) -> None:
    """Replay a race that ended in the terminal (:func:`replay_app`)."""
    await (await replay_app(client, race_id)).run_async()


async def run_watch(client: ArenaClient, race_id: str | None = None) -> None:
    """Watch ``race_id`` (the featured race when None, following the next one whenever it
    ends) until the viewer quits (q). The watch is asked for before the screen opens: a
    refusal (``own_race``, ``race_over``, ``race_not_started``, ``not_yet``) raises its
    ``ArenaError`` here."""
    watching = await client.watch(race_id)
    await WatchApp(client, watching, target=race_id).run_async()
