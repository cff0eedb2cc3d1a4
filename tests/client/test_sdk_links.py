"""The SDK over a link that stalls (it forwards nothing more, though nobody closed it) or
drops: a move whose ack comes late, a quick match paired while the link was down, a
dead link noticed, and the order of what a resume delivers. Ada's client talks to the
node through a :class:`~tests.server.link.Link`; everybody else talks to it directly."""

from __future__ import annotations

import pytest

from client.sdk import CLOSE_TIMEOUT, PING_INTERVAL, PING_TIMEOUT, REQUEST_TIMEOUT, ArenaClient
from server.app import ArenaServer
from shared import new_game
from shared.protocol import MatchFound, MoveAck, Progress, RaceEnded, Welcome
from tests.redis_direct import ON_CLUSTER
from tests.server.conftest import WINNABLE_SEED
from tests.server.helpers import start_race
from tests.server.link import Link

pytestmark = pytest.mark.skipif(ON_CLUSTER, reason="one node is enough")


def three_moves() -> tuple[str, str, str]:
    """Ada's first move, her second, and a third that differs from the second."""
    game = new_game("eight-off", WINNABLE_SEED)
    first = game.legal_moves()[0]
    game.play(first)
    second = game.legal_moves()[0]
    game.play(second)
    third = next(move for move in game.legal_moves() if move != second)
    return first, second, third


async def second_move_times_out(ada: ArenaClient, bob: ArenaClient, link: Link, race_id: str) -> str:
    """Ada plays her first move, then her second, whose request reaches the node though
    its ack is held by the link until the request times out: the third move."""
    first, second, third = three_moves()
    await ada.move(race_id, first)
    # Only the stalled request waits this little: the race's setup before it, and the
    # requests after, may take their time on a loaded machine.
    ada.request_timeout = 0.5
    link.stall_replies()
    with pytest.raises(TimeoutError, match=r"^no answer within 0\.5 s$"):
        await ada.move(race_id, second)
    ada.request_timeout = REQUEST_TIMEOUT
    # The node played it all the same: Bob sees Ada's second move.
    await bob.wait_for(Progress, lambda p: p.player_id == ada.player_id and p.move_count == 2)
    return third


async def test_a_move_acked_late_after_its_request_timed_out_is_taken_in_and_the_next_move_follows_it(
    arena: ArenaServer, link: Link
) -> None:
    # A link check that outlasts the stall: the late ack comes on the same connection.
    ada = await ArenaClient.connect(link.url, reconnect=True, link_check_timeout=60)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    third = await second_move_times_out(ada, bob, link, race.race_id)
    link.unstall()
    late = await ada.wait_for(MoveAck)  # the late ack, as an event
    assert late.seq == 2 and ada.seqs[race.race_id] == 2
    ack = await ada.move(race.race_id, third)  # neither seq_conflict nor "played elsewhere"
    assert ack.seq == 3 and not ack.resent and ack.result.move == third
    info = await bob.get_race(race.race_id)
    assert {r.name: r.move_count for r in info.racers}["ada"] == 3
    await ada.close()
    await bob.close()


async def test_the_retry_of_a_move_acked_late_gets_its_ack_and_plays_nothing_twice(
    arena: ArenaServer, link: Link
) -> None:
    ada = await ArenaClient.connect(link.url, reconnect=True, link_check_timeout=60)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    _first, second, _third = three_moves()
    third = await second_move_times_out(ada, bob, link, race.race_id)
    link.unstall()
    await ada.wait_for(MoveAck)
    again = await ada.move(race.race_id, second)  # "it is safe to retry"
    assert again.seq == 2 and again.resent and again.result.move == second
    assert (await ada.move(race.race_id, third)).seq == 3
    info = await bob.get_race(race.race_id)
    assert {r.name: r.move_count for r in info.racers}["ada"] == 3
    await ada.close()
    await bob.close()


async def test_a_move_after_one_whose_ack_was_lost_with_the_connection_goes_after_it(
    arena: ArenaServer, link: Link
) -> None:
    ada = await ArenaClient.connect(link.url, reconnect=True, link_check_timeout=60)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    third = await second_move_times_out(ada, bob, link, race.race_id)
    link.cut()  # the held ack goes with the connection
    link.mend()
    await ada.wait_for(Welcome)
    ack = await ada.move(race.race_id, third)  # the board's seq read again first
    assert ack.seq == 3 and not ack.resent and ack.result.move == third
    await ada.close()
    await bob.close()


async def test_a_request_without_an_answer_on_a_stalled_link_drops_it_and_the_client_resumes(
    arena: ArenaServer, link: Link
) -> None:
    # No keepalive pings: only the request's timeout can tell that the link is dead.
    ada = await ArenaClient.connect(
        link.url, reconnect=True, request_timeout=0.3, link_check_timeout=0.3, ping_interval=None
    )
    await ada.hello(name="ada")
    link.stall()
    with pytest.raises(TimeoutError, match=r"^no answer within 0\.3 s$"):
        await ada.ping()
    welcome = await ada.wait_for(Welcome)
    assert welcome.resumed and ada.resumes == 1
    await ada.ping()  # on the new connection
    await ada.close()


async def test_keepalive_pings_go_every_10_s_and_wait_10_s_for_their_pong_on_every_connection(
    arena: ArenaServer,
) -> None:
    ada = await ArenaClient.connect(arena.url, reconnect=True)
    await ada.hello(name="ada")
    first = ada.ws
    first.transport.abort()  # the network drops
    await ada.wait_for(Welcome)
    for ws in (first, ada.ws):
        assert (ws.ping_interval, ws.ping_timeout, ws.close_timeout) == (10, 10, 5)
    assert (PING_INTERVAL, PING_TIMEOUT, CLOSE_TIMEOUT) == (10, 10, 5)
    await ada.close()


async def test_after_a_drop_the_welcome_comes_before_the_end_of_a_race_that_ended_meanwhile(
    arena: ArenaServer, link: Link
) -> None:
    ada = await ArenaClient.connect(link.url, reconnect=True)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    link.cut()  # ada is away, and cannot come back yet
    async with await ArenaClient.connect(arena.url) as elsewhere:  # ada's other device
        await elsewhere.hello(token=ada.token)
        await elsewhere.finish(race.race_id)
    await bob.finish(race.race_id)
    await bob.wait_for(RaceEnded)
    link.mend()
    first = await ada.next_event()
    while not isinstance(first, Welcome | RaceEnded):  # what came before the drop
        first = await ada.next_event()
    assert isinstance(first, Welcome) and first.races == [race.race_id]
    ended = await ada.next_event()
    assert isinstance(ended, RaceEnded) and ended.race_id == race.race_id
    await ada.close()
    await bob.close()


async def test_a_quick_match_paired_while_the_link_was_stalled_is_found_after_the_resume(
    arena: ArenaServer, link: Link
) -> None:
    ada = await ArenaClient.connect(link.url, reconnect=True)
    await ada.hello(name="ada")
    await ada.quick_match("treize")
    link.stall()  # the node still takes ada for waiting
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    paired = await bob.wait_for_match(timeout=10)
    link.cut()  # the match_found held by the stall goes with the connection
    link.mend()
    found = await ada.wait_for_match(timeout=10)
    assert isinstance(found, MatchFound) and found.race.race_id == paired.race.race_id
    assert ada.queued_for is None
    assert {r.name for r in found.race.racers} == {"ada", "bob"}
    await ada.close()
    await bob.close()
