"""The doctests in every module's docstrings run and pass; none silently stops running.

Modules are discovered, not listed: a module whose source shows an example (``>>> ``)
must have run at least one.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

PACKAGES = ("shared", "server", "client")
#: Benchmark modules with examples (the others are scripts, not importable as modules).
BENCH_MODULES = ("bench.layers",)


def module_names() -> list[str]:
    names = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}.")]
    return [*names, *BENCH_MODULES]


@pytest.mark.parametrize("name", module_names())
def test_doctests_pass(name: str) -> None:
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert failed == 0
    if ">>> " in inspect.getsource(module):
        assert attempted > 0, f"{name} shows examples but none ran"


def test_discovery_finds_the_modules_with_examples() -> None:
    names = module_names()
    assert {"shared.moves", "shared.protocol", "server.store.keys", "server.timesource"} <= set(names)
