"""The doctests in the engine's docstrings run and pass."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "shared",
    "shared.cards",
    "shared.deal",
    "shared.moves",
    "shared.game",
    "shared.eagle_wing",
    "shared.treize",
    "shared.eight_off",
    "shared.engine",
    "shared.render",
]
WITH_EXAMPLES = {
    "shared",
    "shared.cards",
    "shared.deal",
    "shared.moves",
    "shared.eagle_wing",
    "shared.engine",
}


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name: str) -> None:
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert failed == 0
    if name in WITH_EXAMPLES:
        assert attempted > 0
