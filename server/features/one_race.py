"""One race at a time per player, kept across nodes and devices.

A player races in one race at a time: seated in a race that counts down or runs, with
their own board not finished (whoever won or gave up may race again before the others
end). Reading every racer's races before a start cannot keep that on its own: two races
with a racer in common may start at the same moment, on two nodes or from two devices.
So before its countdown begins, a race also claims each of its racers in Redis (one key
per player, set only while no other race holds it, see ``CLAIM_RACING``). The second
race finds the first one's claim and does not start.

A claim is short while its race is about to start (a node that dies then leaves it for
:data:`STARTING_MS` at most) and lasts until a minute past the race's time once it
started. A claim held by a race the player no longer races (over, or their board
finished) is taken over.
"""

from __future__ import annotations

from typing import Final

from server.store import RaceMeta, RaceStatus, Seat, Store

#: How long a claim lasts while its race's countdown is being begun, ms.
STARTING_MS: Final = 15_000
#: How long a started race's claims outlast its end, ms.
PAST_THE_END_MS: Final = 60_000


async def racing(store: Store, meta: RaceMeta, player_id: str) -> bool:
    """Whether the player races ``meta``'s race now: it counts down or runs, and their
    board there is not finished."""
    if meta.status not in (RaceStatus.COUNTDOWN, RaceStatus.RUNNING):
        return False
    board = await store.boards.board(meta.race_id, player_id)
    return board is None or not board.finished


class RacingClaims:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def claim(self, race_id: str, seats: list[Seat]) -> list[Seat]:
        """Claim every racer for ``race_id``'s start. The racers another race holds (they
        race there, or it is starting with them right now); then this race keeps none of
        its claims."""
        taken: list[str] = []
        busy: list[Seat] = []
        for seat in seats:
            if await self._claim_one(race_id, seat.player_id):
                taken.append(seat.player_id)
            else:
                busy.append(seat)
        if busy:
            await self.release(race_id, taken)
        return busy

    async def _claim_one(self, race_id: str, player_id: str) -> bool:
        players = self.store.players
        holder = await players.claim_racing(player_id, race_id, STARTING_MS)
        if not holder:
            return True
        meta = await self.store.races.meta(holder)
        if meta is not None and (meta.status is RaceStatus.OPEN or await racing(self.store, meta, player_id)):
            return False
        # Taken over only while that race still holds it: a third race may have meanwhile.
        return not await players.claim_racing(player_id, race_id, STARTING_MS, over=holder)

    async def hold(self, race_id: str, player_ids: list[str], ends_at: int, now: int) -> None:
        """The race started: its claims last until a minute past its time."""
        for player_id in player_ids:
            await self.store.players.claim_racing(player_id, race_id, ends_at - now + PAST_THE_END_MS)

    async def release(self, race_id: str, player_ids: list[str]) -> None:
        """The race did not start: its claims go."""
        for player_id in player_ids:
            await self.store.players.release_racing(player_id, race_id)
