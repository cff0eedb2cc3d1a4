"""Rematch offers: one per ended race, its answers decided atomically by Lua."""

from __future__ import annotations

from typing import Any

from server.store import keys, scripts
from server.store.records import RematchRecord


class RematchStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._offer = client.register_script(scripts.REMATCH_OFFER.source)
        self._answer = client.register_script(scripts.REMATCH_ANSWER.source)
        self._expire = client.register_script(scripts.REMATCH_EXPIRE.source)
        self._withdraw = client.register_script(scripts.REMATCH_WITHDRAW.source)

    async def offer(
        self,
        race_id: str,
        offerer: str,
        racers: list[str],
        now: int,
        expires_at: int,
        ttl: int,
        share_commitment: str = "",
    ) -> bool:
        """Open an offer to ``racers`` (the offerer among them, with the commitment to
        their seed share for the rematch, if any); False when one is open or started already."""
        answer: str = await self._offer(
            keys=[keys.race_rematch(race_id)], args=[offerer, now, expires_at, ttl, share_commitment, *racers]
        )
        if answer != "ok":
            return False
        await self.redis.zadd(keys.REMATCHES_DUE, {f"{race_id}:{expires_at}": expires_at})
        return True

    async def due(self, now: int, limit: int = 100) -> list[str]:
        """The offers whose wait was over by ``now`` (the oldest first), decided or not:
        each as ``<race id>:<expires ms>``, to :meth:`drop_due` once decided. Kept in
        Redis, so that an offer whose node stopped during its wait is decided by another."""
        due: list[str] = await self.redis.zrangebyscore(keys.REMATCHES_DUE, "-inf", now, 0, limit)
        return due

    async def drop_due(self, entry: str) -> None:
        """An entry of :meth:`due` decided (a later offer of the same race has its own)."""
        await self.redis.zrem(keys.REMATCHES_DUE, entry)

    async def answer(
        self, race_id: str, player_id: str, accept: bool, now: int, share_commitment: str = ""
    ) -> str:
        """The script's word (see :data:`scripts.REMATCH_ANSWER`); an acceptance keeps the
        commitment to the racer's seed share for the rematch, if any."""
        word: str = await self._answer(
            keys=[keys.race_rematch(race_id)],
            args=[player_id, "accepted" if accept else "declined", now, share_commitment],
        )
        return word

    async def expire(self, race_id: str, now: int, stuck_ms: int, stuck_reason: str) -> str:
        """Decide an offer whose wait is over (see :data:`scripts.REMATCH_EXPIRE`); one
        still starting ``stuck_ms`` past it fails with ``stuck_reason``."""
        word: str = await self._expire(keys=[keys.race_rematch(race_id)], args=[now, stuck_ms, stuck_reason])
        return word

    async def withdraw(self, race_id: str, reason: str) -> bool:
        """End an offer still open as ``failed`` with ``reason`` (its offerer left);
        False when it was decided meanwhile."""
        answer: str = await self._withdraw(keys=[keys.race_rematch(race_id)], args=[reason])
        return answer == "ok"

    async def started(self, race_id: str, new_race_id: str) -> None:
        await self.redis.hset(
            keys.race_rematch(race_id), mapping={"status": "started", "new_race_id": new_race_id}
        )

    async def failed(self, race_id: str, reason: str) -> None:
        await self.redis.hset(keys.race_rematch(race_id), mapping={"status": "failed", "reason": reason})

    async def get(self, race_id: str) -> RematchRecord | None:
        raw: dict[str, str] = await self.redis.hgetall(keys.race_rematch(race_id))
        if not raw:
            return None
        answers = {field[2:]: value for field, value in raw.items() if field.startswith("a:")}
        commitments = {field[2:]: value for field, value in raw.items() if field.startswith("c:")}
        return RematchRecord(
            race_id=race_id,
            offered_by=raw["offered_by"],
            status=raw["status"],
            expires_at=int(raw["expires_at"]),
            answers=answers,
            commitments=commitments,
            new_race_id=raw.get("new_race_id") or None,
            reason=raw.get("reason") or None,
        )
