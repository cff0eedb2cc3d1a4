"""Bots: strategies play only legal moves from what a racer sees, search beats random and
wins the Eight Off deals the solver wins, and two bots race each other to the end on a
real server (client.bots)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import pytest

from client.bots import Bot, Memory, RandomStrategy, SearchStrategy, Strategy, distinct_moves
from client.bots.offline import play_deal
from client.sdk import ArenaClient
from server.app import ArenaServer
from shared import GAMES, new_game
from shared.knowledge import view_key
from shared.protocol import MatchFound, QuickMatchLeft, RaceEnded, RaceStarted, RematchStarted, RematchUpdate
from shared.solver import solve_deal
from tests.server.conftest import running_node
from tests.shared.enginekit import played, with_hidden_shuffled

#: Small searches keep these tests quick; the strategy is the same.
QUICK_SEARCH: dict[str, Any] = {"budget": 60, "samples": 2}


class Checked:
    """Wraps a strategy and fails the test if it ever picks a move that is not legal."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.choices = 0

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
        move = self.inner.choose(view, legal)
        assert move is None or move in legal, f"{self.name} chose {move!r}, not in {legal}"
        self.choices += 1
        return move


class BlundersFirst:
    """Plays a move the server must refuse first, then lets ``inner`` play."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.blundered = False

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
        if not self.blundered:
            self.blundered = True
            return "t1>t1"
        return self.inner.choose(view, legal)


# ----- strategies offline ------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
def test_random_and_search_only_ever_choose_legal_moves(game_id: str) -> None:
    for seed in (1, 2):
        for strategy in (RandomStrategy(seed), SearchStrategy(seed, **QUICK_SEARCH)):
            checked = Checked(strategy)
            outcome = play_deal(game_id, seed, checked, max_moves=80)
            assert checked.choices >= min(outcome.moves, 1)


@pytest.mark.parametrize("game_id", ["eagle-wing", "treize"])
def test_search_chooses_alike_for_games_that_differ_only_in_hidden_cards(game_id: str) -> None:
    for seed in range(4):
        real = played(game_id, seed, moves=seed * 7)
        twin = with_hidden_shuffled(real, random.Random(seed))
        assert twin.view() == real.view() and twin.position() != real.position()
        choices = [
            SearchStrategy(seed=seed, **QUICK_SEARCH).choose(game.view(), game.legal_moves())
            for game in (real, twin)
        ]
        assert choices[0] == choices[1]


def test_search_scores_higher_on_every_game_and_wins_more_than_random() -> None:
    seeds = range(1000, 1004)
    wins = {"search": 0, "random": 0}
    for game_id in GAMES:
        search = [play_deal(game_id, s, SearchStrategy(s), max_moves=300) for s in seeds]
        rand = [play_deal(game_id, s, RandomStrategy(s), max_moves=300) for s in seeds]
        assert sum(o.score for o in search) > sum(o.score for o in rand), game_id
        wins["search"] += sum(o.won for o in search)
        wins["random"] += sum(o.won for o in rand)
    # Treize is rarely won by either in four deals; Eight Off almost always by search.
    assert wins["search"] >= wins["random"] + 4, wins


def test_search_never_returns_to_a_position_it_already_stood_on() -> None:
    game = new_game("eight-off", 1001)
    strategy = SearchStrategy(seed=1, **QUICK_SEARCH)
    seen = {view_key(game.view())}
    for _ in range(120):
        move = strategy.choose(game.view(), game.legal_moves())
        if move is None:
            break
        game.play(move)
        key = view_key(game.view())
        assert key not in seen, f"{move} went back to a position already played"
        seen.add(key)


def test_search_gives_up_when_the_score_stalls_for_its_patience() -> None:
    strategy = SearchStrategy(seed=1, patience=3, **QUICK_SEARCH)
    game = new_game("eagle-wing", 1001)
    moves = 0
    while (move := strategy.choose(game.view(), game.legal_moves())) is not None:
        game.play(move)
        moves += 1
        assert moves < 200
    assert not game.is_won and game.legal_moves()


#: Eight Off deals the solver wins on which the search alone walked into a dead end (every
#: cell full, each move left going back) and gave up: 16246751131658177113 after 25 moves.
EIGHT_OFF_DEALS_THE_SEARCH_GAVE_UP = (4, 8, 13, 16246751131658177113)


def test_search_wins_the_eight_off_deals_the_solver_wins_where_its_own_lookahead_gave_up() -> None:
    for deal in EIGHT_OFF_DEALS_THE_SEARCH_GAVE_UP:
        assert solve_deal("eight-off", deal).line is not None
        game = new_game("eight-off", deal)
        strategy = SearchStrategy(seed=1)
        seen = {view_key(game.view())}
        while not game.is_won:
            move = strategy.choose(game.view(), game.legal_moves())
            assert move is not None, f"gave deal {deal} up after {game.move_count} moves, {game.score} home"
            game.play(move)
            assert view_key(game.view()) not in seen, f"{move} went back to a position already played"
            seen.add(view_key(game.view()))


def test_search_off_its_winning_line_after_a_refused_or_undone_move_plans_again_and_wins() -> None:
    game = new_game("eight-off", EIGHT_OFF_DEALS_THE_SEARCH_GAVE_UP[-1])
    strategy = SearchStrategy(seed=1)
    for _ in range(5):
        move = strategy.choose(game.view(), game.legal_moves())
        assert move is not None
        game.play(move)
    refused = strategy.choose(game.view(), game.legal_moves())
    # The server refused it: the bot reads the same board again and asks again.
    assert refused is not None and strategy.choose(game.view(), game.legal_moves()) == refused
    game.play(refused)
    game.play("undo")
    while not game.is_won and game.move_count < 100:
        move = strategy.choose(game.view(), game.legal_moves())
        assert move is not None, f"gave up after {game.move_count} moves, {game.score} home"
        game.play(move)
    assert game.is_won


def test_distinct_moves_drop_moves_that_only_rename_piles() -> None:
    view: dict[str, Any] = new_game("eight-off", 1).view()
    legal = ["r1>r5", "r1>r6", "r1>t3", "t1:3>t4", "t2>r5", "t2>r6"]
    view["piles"]["t4"] = {"count": 0, "cards": []}
    view["piles"]["t1"] = {"count": 3, "cards": ["KS", "QS", "JS"]}
    # r1 (one card) to an empty cell only renames it; a whole pile to an empty pile too;
    # of the moves of one card to empty cells, only the first stays.
    assert distinct_moves(view, legal) == ["r1>t3", "t2>r5"]


def test_memory_remembers_the_eagle_wing_stock_after_a_redeal_and_only_true_cards() -> None:
    game = new_game("eagle-wing", 8)
    memory = Memory()
    known_after_redeal = 0
    while True:
        memory.observe(game.view())
        remembered = memory.remembered()
        for (name, index), card in remembered.items():
            assert game.piles[name][index] == card
        if game.redeals_used == 1 and not game.piles["waste"]:
            known_after_redeal = len(remembered)
        legal = game.legal_moves()
        if "redeal" in legal and game.redeals_used == 1:
            break
        game.play("deal" if "deal" in legal else "redeal")
    # Right after the redeal the whole stock is known; after the second pass, the waste.
    assert known_after_redeal == 30
    assert len(memory.remembered()) == len(game.piles["waste"]) - 1 == 29


def test_memory_knows_which_treize_cards_were_removed() -> None:
    game = new_game("treize", 3)
    memory = Memory()
    removed: set[str] = set()
    for _ in range(40):
        memory.observe(game.view())
        assert memory.out_of_play == removed
        moves = [m for m in game.legal_moves() if m != "deal"] or game.legal_moves()
        if not moves:
            break
        result = game.play(moves[0])
        removed |= {step.card for step in result.steps if step.dst == "removed" and step.card}


# ----- bots on a real server ---------------------------------------------------------------


async def _race_two_bots(redis_url: str, first: Strategy, second: Strategy) -> None:
    async with running_node(redis_url, quick_match_time_limit=30) as node:
        clients = [await ArenaClient.connect(node.url) for _ in range(2)]
        try:
            bots = [
                Bot(clients[0], "eight-off", lambda: first, number=1, max_moves=150, wait=10),
                Bot(clients[1], "eight-off", lambda: second, number=2, max_moves=150, wait=10),
            ]
            for bot in bots:
                await bot.hello()
            summaries = await asyncio.wait_for(asyncio.gather(*(bot.race() for bot in bots)), 60)
        finally:
            for client in clients:
                await client.close()
    for summary in summaries:
        assert summary is not None
        names = sorted(standing.name for standing in summary.standings)
        assert names == sorted(bot.name for bot in bots)
        assert all(standing.bot for standing in summary.standings)
    assert summaries[0] == summaries[1]


async def test_two_bots_quick_match_race_and_both_are_in_the_standings(clean_redis: str) -> None:
    search, rand = Checked(SearchStrategy(seed=1)), Checked(RandomStrategy(seed=1))
    await _race_two_bots(clean_redis, search, rand)
    assert search.choices > 0 and rand.choices > 0


async def test_a_bot_refused_a_move_reads_its_board_again_and_plays_on(clean_redis: str) -> None:
    blunderer = BlundersFirst(Checked(SearchStrategy(seed=2)))
    await _race_two_bots(clean_redis, blunderer, RandomStrategy(seed=2))
    assert blunderer.blundered and isinstance(blunderer.inner, Checked) and blunderer.inner.choices > 0


async def _person_races(person: ArenaClient, race_id: str | None = None) -> str:
    """The person plays a race (a quick match when ``race_id`` is None): gives up at the
    start and waits for the end; the race's id."""
    if race_id is None:
        await person.quick_match("eight-off")
        race_id = (await person.wait_for(MatchFound)).race.race_id
    await person.wait_for(RaceStarted, lambda e: e.race_id == race_id)
    await person.finish(race_id)
    await person.wait_for(RaceEnded, lambda e: e.race_id == race_id)
    return race_id


@contextlib.asynccontextmanager
async def person_and_bot(
    redis_url: str, seed: int, **bot_options: Any
) -> AsyncIterator[tuple[ArenaServer, ArenaClient, Bot]]:
    """A node (short countdowns), a person named ada and a bot of random moves (5 at most
    unless ``bot_options`` say otherwise), both said hello on it; closed after."""
    async with running_node(redis_url, quick_match_time_limit=30, countdown=0.1) as node:
        person, bot_client = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        try:
            await person.hello(name="ada")
            options: dict[str, Any] = {"max_moves": 5, "wait": 10, **bot_options}
            bot = Bot(bot_client, "eight-off", lambda: RandomStrategy(seed=seed), **options)
            await bot.hello()
            yield node, person, bot
        finally:
            await person.close()
            await bot_client.close()


async def test_a_bot_whose_quick_match_ended_unpaired_queues_again_and_races(clean_redis: str) -> None:
    async with person_and_bot(clean_redis, seed=4) as (node, person, bot):
        racing = asyncio.create_task(bot.race())
        assert node.store is not None and bot.client.player_id is not None
        while await node.store.queues.queued(bot.client.player_id) is None:
            await asyncio.sleep(0.02)
        async with await ArenaClient.connect(node.url) as elsewhere:  # the bot's account elsewhere
            await elsewhere.hello(token=bot.client.token)
            await elsewhere.cancel_quick_match()
            assert (await elsewhere.wait_for(QuickMatchLeft)).reason == "cancelled"
        summary, race_id = await asyncio.wait_for(asyncio.gather(racing, _person_races(person)), 30)
        assert summary is not None and summary.race_id == race_id


async def test_a_bot_refused_as_one_message_too_many_asks_again_and_races_to_the_end(
    clean_redis: str,
) -> None:
    """Two messages a second per connection: the bot's moves come faster, and so does its
    finish right after its last one; each refusal is waited out, the race runs to its end."""
    async with running_node(
        clean_redis, quick_match_time_limit=30, countdown=0.1, rate_limit=2, rate_burst=2
    ) as node:
        person, bot_client = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        try:
            await person.hello(name="ada")
            bot = Bot(bot_client, "eight-off", lambda: RandomStrategy(seed=6), max_moves=3, wait=10)
            await bot.hello()

            async def person_races() -> str:
                await person.quick_match("eight-off")
                race_id = (await person.wait_for(MatchFound)).race.race_id
                await person.wait_for(RaceStarted, lambda e: e.race_id == race_id)
                await asyncio.sleep(1.5)  # the person's own allowance refills meanwhile
                await person.finish(race_id)
                await person.wait_for(RaceEnded, lambda e: e.race_id == race_id, timeout=15)
                return race_id

            summary, race_id = await asyncio.wait_for(asyncio.gather(bot.race(), person_races()), 30)
            log = await person.move_log(race_id)
        finally:
            await person.close()
            await bot_client.close()
    assert summary is not None and summary.race_id == race_id
    assert len([m for m in log.moves if m.player_id == bot_client.player_id]) == 3


async def test_a_bot_told_to_think_spaces_its_moves_by_at_least_half_its_mean(clean_redis: str) -> None:
    think = 0.3
    async with person_and_bot(clean_redis, seed=5, max_moves=4, think=think, rng=random.Random(5)) as (
        _node,
        person,
        bot,
    ):
        summary, race_id = await asyncio.wait_for(asyncio.gather(bot.race(), _person_races(person)), 30)
        assert summary is not None and summary.race_id == race_id
        log = await person.move_log(race_id)
    times = [move.at for move in log.moves if move.player_id == bot.client.player_id]
    assert len(times) == 4
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert min(gaps) >= think * 0.5 * 1000, gaps


async def test_a_bot_takes_a_persons_rematch_while_it_has_races_left_and_declines_after_its_last(
    clean_redis: str,
) -> None:
    async with person_and_bot(clean_redis, seed=3) as (_node, person, bot):
        first, first_id = await asyncio.wait_for(asyncio.gather(bot.race(), _person_races(person)), 30)
        assert first is not None and first.race_id == first_id

        second = asyncio.create_task(bot.race())
        await person.offer_rematch(first_id)
        started = await person.wait_for(RematchStarted, lambda e: e.race_id == first_id)
        assert sorted(r.name for r in started.race.racers) == sorted(["ada", bot.name])
        second_id = await _person_races(person, started.race.race_id)
        summary = await asyncio.wait_for(second, 30)
        assert summary is not None and summary.race_id == second_id

        leaving = asyncio.create_task(bot.wind_down())
        await person.offer_rematch(second_id)
        told = await person.wait_for(
            RematchUpdate, lambda u: u.rematch.race_id == second_id and u.rematch.status != "open"
        )
        assert told.rematch.status == "declined"
        assert {r.name: r.answer for r in told.rematch.racers} == {"ada": "offered", bot.name: "declined"}
        await asyncio.wait_for(leaving, 10)


async def test_a_bot_declines_at_once_a_rematch_offered_after_its_window(clean_redis: str) -> None:
    async with person_and_bot(clean_redis, seed=3, rematch_window=0.2) as (_node, person, bot):
        first, race_id = await asyncio.wait_for(asyncio.gather(bot.race(), _person_races(person)), 30)
        assert first is not None and first.race_id == race_id
        queueing = asyncio.create_task(bot.race())  # the window lapses: the bot queues again
        await asyncio.sleep(0.5)
        for _ in range(2):  # offered again: declined at once again
            expires_at = (await person.offer_rematch(race_id)).expires_at
            told = await person.wait_for(
                RematchUpdate,
                lambda u, at=expires_at: u.rematch.expires_at == at and u.rematch.status != "open",
                timeout=3,
            )
            assert told.rematch.status == "declined"
            assert {r.name: r.answer for r in told.rematch.racers} == {"ada": "offered", bot.name: "declined"}
        queueing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await queueing
