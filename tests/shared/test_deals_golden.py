"""Golden deals: a deal never changes silently (docs/deals.md, algorithm sha256-ctr v1).

The pinned values below were taken from the engine once; they are checked against an
independent implementation of the documented algorithm and against the worked example
of docs/deals.md, so they pin the documented algorithm, not just the engine's output.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared import DEAL_VERSION, FULL_DECK, GAMES, new_game, shuffled_deck

ROOT = Path(__file__).resolve().parents[2]

GOLDEN: dict[tuple[str, int], tuple[list[str], str]] = {
    ("eagle-wing", 0): (
        ["3S", "KC", "KD", "AS", "QD", "5S", "QH", "7D", "2C", "TD"],
        "6d6dfca2375fbeeae99ce0cc187150b3857b3931b46adc3ed1efd996f5ffdaf3",
    ),
    ("eagle-wing", 1): (
        ["4D", "2H", "QS", "KH", "7H", "3H", "3D", "9H", "QC", "AH"],
        "74aa2d88aa9ca7eb90d8540ed96587e91388b4fcbb070a64f09e0694a29885be",
    ),
    ("eagle-wing", 2): (
        ["QH", "2C", "5S", "7C", "TS", "JC", "6S", "2H", "3D", "AD"],
        "887c914bc5df6f4936421ad7f7614b5d50c432ef19e67987c2551e4e1b0d2b16",
    ),
    ("treize", 0): (
        ["4C", "8C", "TS", "9S", "KH", "JH", "TD", "QC", "8S", "KD"],
        "16b522e10a6fe84d6de8fc79ac3868940df7e6b33f00ec9ccb55c3b67ad817a9",
    ),
    ("treize", 1): (
        ["KH", "9H", "4D", "8D", "AC", "2H", "3H", "QS", "9S", "5S"],
        "dbfee0943322a25e16e7b2862efeaf4f7da93cb6436727b23076535aeb9e0f98",
    ),
    ("treize", 2): (
        ["TH", "QD", "5C", "8D", "AS", "5S", "AD", "4D", "2H", "KS"],
        "8f21d9809e0e2c7d7450fe6cff8787efb03c32026d8e91260102a6e4dc528637",
    ),
    ("eight-off", 0): (
        ["4C", "2S", "7H", "QD", "8D", "TC", "9S", "6H", "AD", "4H"],
        "9a4e9f9d91aea353449291a767474fdb42b8a5e6ef7363c50d5c6be4a9c0bc78",
    ),
    ("eight-off", 1): (
        ["AC", "TH", "8H", "JC", "5C", "KS", "AD", "2D", "9H", "5S"],
        "50e616fff730be7c0ecb501da8c7ef5fe4093f9886cd275961d588444cce5864",
    ),
    ("eight-off", 2): (
        ["2C", "JD", "4C", "7D", "TC", "6D", "6S", "QH", "9H", "5H"],
        "418e449d767ecacbae794e8002f6faa88640a5ff3e96519afc571a1e447b3c84",
    ),
}


def _digest(deck: list[str]) -> str:
    return hashlib.sha256(",".join(deck).encode("ascii")).hexdigest()


def reference_deck(game: str, seed: int) -> list[str]:
    """docs/deals.md written out again, independently of shared/deal.py."""
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    words: list[int] = []
    block = 0

    def word() -> int:
        nonlocal block
        if not words:
            digest = hashlib.sha256(f"solitaire-arena:deal:v1:{game}:{seed}:{block}".encode()).digest()
            block += 1
            words.extend(int.from_bytes(digest[i : i + 8], "big") for i in (24, 16, 8, 0))
        return words.pop()

    for i in range(51, 0, -1):
        m = i + 1
        while True:
            w = word()
            if w < 2**64 - (2**64 % m):
                break
        j = w % m
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize(("game", "seed"), sorted(GOLDEN))
def test_golden_deal_is_pinned(game: str, seed: int) -> None:
    first, digest = GOLDEN[game, seed]
    deck = shuffled_deck(game, seed)
    assert deck[:10] == first
    assert _digest(deck) == digest
    assert sorted(deck) == sorted(FULL_DECK)


@pytest.mark.parametrize("game", GAMES)
def test_deal_follows_the_documented_algorithm(game: str) -> None:
    for seed in [*range(25), 10**6, 2**64 + 3, 10**40]:
        assert shuffled_deck(game, seed) == reference_deck(game, seed)
    for seed in range(3):
        assert _digest(reference_deck(game, seed)) == GOLDEN[game, seed][1]


def test_deal_matches_the_worked_example_of_docs() -> None:
    block0 = hashlib.sha256(b"solitaire-arena:deal:v1:eight-off:0:0").hexdigest()
    assert block0.startswith("a3c35c9d00831488")
    assert shuffled_deck("eight-off", 0)[:8] == ["4C", "2S", "7H", "QD", "8D", "TC", "9S", "6H"]


def test_deal_version_is_1_and_explicit_version_1_gives_the_same_deal() -> None:
    assert DEAL_VERSION == 1
    assert shuffled_deck("treize", 7, 1) == shuffled_deck("treize", 7)
    assert new_game("treize", 7, deal_version=1).position() == new_game("treize", 7).position()
    with pytest.raises(ValueError):
        shuffled_deck("treize", 7, 2)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, None])
def test_deal_rejects_a_bad_seed(seed: object) -> None:
    with pytest.raises(ValueError):
        shuffled_deck("eight-off", seed)  # type: ignore[arg-type]


def test_game_id_is_part_of_the_deal() -> None:
    decks = {tuple(shuffled_deck(game, 0)) for game in GAMES}
    assert len(decks) == 3


def test_seeds_give_different_deals() -> None:
    decks = {tuple(shuffled_deck("eagle-wing", seed)) for seed in range(200)}
    assert len(decks) == 200


@pytest.mark.parametrize(("game", "seed"), sorted(GOLDEN))
def test_golden_layout_uses_the_pinned_order(game: str, seed: int) -> None:
    deck = shuffled_deck(game, seed)
    piles = new_game(game, seed).position()["piles"]
    if game == "eagle-wing":
        assert piles["f1"] == [deck[21]]
        assert piles["reserve"] == deck[:13]
        assert piles["stock"] == deck[22:]
    elif game == "treize":
        assert [piles[f"p{i}"][0] for i in range(1, 29)] == deck[:28]
        assert piles["stock"] == deck[28:]
    else:
        assert [piles[f"r{i}"] for i in range(1, 5)] == [[c] for c in deck[48:]]
        assert piles["t3"] == deck[2:48:8]


def test_deal_is_independent_of_random_and_hash_seed() -> None:
    import random

    random.seed(12345)
    here = {game: shuffled_deck(game, 77) for game in GAMES}
    script = (
        "import json, random, sys\n"
        "random.seed(int(sys.argv[1]))\n"
        "from shared import GAMES, new_game, shuffled_deck\n"
        "print(json.dumps({g: [shuffled_deck(g, 77), new_game(g, 77).position()] for g in GAMES}))\n"
    )
    results = []
    for hash_seed, random_seed in (("0", "1"), ("12345", "999"), ("random", "5")):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", script, random_seed],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        results.append(json.loads(out.stdout))
    assert results[0] == results[1] == results[2]
    for game in GAMES:
        assert results[0][game][0] == here[game]
        assert results[0][game][1] == new_game(game, 77).position()
