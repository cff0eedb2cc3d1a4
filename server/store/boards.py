"""Racers' boards: the one atomic call per move, giving up, reading boards and the log."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from server.store import keys, scripts
from server.store.batch import batcher_for
from server.store.records import Answer, BoardRecord, LoggedMoveRecord, MoveOutcome

_COUNTERS = ("seq", "move_count", "score", "won", "finished", "score_at", "finished_at")


class BoardStore:
    def __init__(self, client: Any, ack_replicas: int = 0, sharded: bool = False) -> None:
        self.redis = client
        self._move = client.register_script(scripts.MOVE.source_for(sharded))
        self._finish = client.register_script(scripts.FINISH.source_for(sharded))
        self._confirm = client.register_script(scripts.CONFIRM.source)
        self._batcher = batcher_for(client, ack_replicas)

    async def aclose(self) -> None:
        await self._batcher.aclose()

    async def board(self, race_id: str, player_id: str) -> BoardRecord | None:
        raw: dict[str, str] = await self.redis.hgetall(keys.race_board(race_id, player_id))
        return _parse_board(player_id, raw) if raw else None

    async def boards(self, race_id: str, player_ids: list[str]) -> list[BoardRecord]:
        """The counters of these racers' boards (no positions), skipping missing ones."""
        return (await self.boards_of_races([(race_id, player_ids)]))[0]

    async def boards_of_races(self, racers: list[tuple[str, list[str]]]) -> list[list[BoardRecord]]:
        """:meth:`boards` of each (race, racers) pair, in one round trip."""
        wanted = [(race_id, player_id) for race_id, player_ids in racers for player_id in player_ids]
        if not wanted:
            return [[] for _ in racers]
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id, player_id in wanted:
                pipe.hmget(keys.race_board(race_id, player_id), _COUNTERS)
            rows = iter(await pipe.execute())
        found: list[list[BoardRecord]] = []
        for _race_id, player_ids in racers:
            pairs = [(player_id, next(rows)) for player_id in player_ids]
            found.append(
                [
                    _parse_board(player_id, dict(zip(_COUNTERS, row, strict=True)))
                    for player_id, row in pairs
                    if row[0] is not None
                ]
            )
        return found

    async def move_log(self, race_id: str) -> list[LoggedMoveRecord]:
        entries = await self.redis.xrange(keys.race_log(race_id))
        return [
            LoggedMoveRecord(f["player"], int(f["seq"]), f["move"], int(f["at"])) for _entry_id, f in entries
        ]

    def apply_move(
        self,
        race_id: str,
        player_id: str,
        seq: int,
        sent: str,
        position: str,
        move_count: int,
        result: str,
        move: str,
        score: int,
        won: bool,
        now: int,
        event: str,
        node_id: str,
        can_undo: bool = False,
    ) -> asyncio.Future[MoveOutcome]:
        """The one atomic call per move: CAS on seq, store, log, publish. Its outcome, once
        its batch has run: await it (a future, not a coroutine: one coroutine less per move).

        Everything is already encoded (``position``, ``result`` and ``event`` are JSON),
        so a move waiting on Redis holds strings, not the position's lists and dicts:
        the garbage collector's young generation stays small. The event is published
        only when a node other than ``node_id`` (the mover's, which delivers it itself)
        follows the race.
        """
        script_keys = keys.move_keys(race_id, player_id)
        args: list[Any] = [
            player_id,
            seq,
            move,
            position,
            move_count,
            score,
            "1" if won else "0",
            now,
            result,
            event,
            keys.race_channel(race_id),
            node_id,
            sent,
            "1" if can_undo else "0",
            keys.watch_channel(race_id),
        ]
        return self._batcher.call(self._move, script_keys, args, _outcome)

    async def confirm_replicated(self, race_id: str, player_id: str, now: int) -> None:
        """Before a resent move is acknowledged again: once the replicas hold its board
        (when they must, ``SA_ACK_REPLICAS``). A small write in the board's slot, then the
        batch's ``WAIT``, covers every earlier write of that master, the move's included;
        raises :class:`~server.store.batch.ReplicasBehind` when they do not confirm."""
        if self._batcher.ack_replicas:
            await self._batcher.call(self._confirm, [keys.race_board(race_id, player_id)], [now])

    async def finish(self, race_id: str, player_id: str, now: int, event: str) -> MoveOutcome:
        reply: list[str] = await self._finish(
            keys=[keys.race_meta(race_id), keys.race_board(race_id, player_id)],
            args=[now, event, keys.race_channel(race_id)],
        )
        return _outcome(reply)


def _parse_board(player_id: str, raw: dict[str, Any]) -> BoardRecord:
    position = orjson.loads(raw["position"]) if raw.get("position") else {}
    return BoardRecord(
        player_id=player_id,
        position=position,
        seq=int(raw["seq"]),
        move_count=int(raw["move_count"]),
        score=int(raw["score"]),
        won=raw["won"] == "1",
        finished=raw["finished"] == "1",
        score_at=int(raw["score_at"]),
        finished_at=int(raw["finished_at"]),
        last_result=raw.get("ack"),
        last_move=raw.get("sent"),
        can_undo=raw.get("can_undo") == "1",
    )


def _outcome(reply: list[str]) -> MoveOutcome:
    if reply[0] == "ok":  # the hot path: skip the enum lookup
        return MoveOutcome(Answer.OK, all_finished=int(reply[1]) >= int(reply[2]))
    answer = Answer(reply[0])
    if answer is Answer.SEQ:
        return MoveOutcome(answer, current_seq=int(reply[1]))
    return MoveOutcome(answer)
