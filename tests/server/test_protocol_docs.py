"""docs/protocol.md documents every message type and every error code, and its opening
names every module of shared/protocol/; docs/architecture.md names every module of
every package."""

from __future__ import annotations

import pkgutil
import typing
from pathlib import Path

import shared.protocol
from shared.protocol import ClientMessage, ErrorCode, ServerMessage

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
#: The page's opening, before its first section: where it lists the package's modules.
INTRO = DOC.split("\n## ", 1)[0]


def message_types(union: object) -> list[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return [m.model_fields["type"].default for m in members]


def test_every_message_type_has_a_json_example() -> None:
    for kind in message_types(ClientMessage) + message_types(ServerMessage):
        assert f'"type": "{kind}"' in DOC or f'"type":"{kind}"' in DOC, kind


def test_every_error_code_is_listed() -> None:
    for code in ErrorCode:
        assert f"`{code.value}`" in DOC, code


def test_the_opening_names_every_module_of_the_protocol_package() -> None:
    modules = [m.name for m in pkgutil.iter_modules(shared.protocol.__path__)]
    assert "session" in modules
    missing = [name for name in modules if f"`{name}`" not in INTRO]
    assert not missing, f"docs/protocol.md's opening does not name {missing}"


ARCHITECTURE = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()


def _package_row(package: str) -> str:
    start = ARCHITECTURE.index(f"\n| `{package}` |")
    return ARCHITECTURE[start + 1 : ARCHITECTURE.index("\n", start + 1)]


def test_the_architecture_table_names_every_module_of_each_package() -> None:
    root = Path(__file__).resolve().parents[2]
    unnamed: dict[str, list[str]] = {}
    for package in (
        "shared/",
        "shared/protocol/",
        "server/",
        "server/transport/",
        "server/features/",
        "server/store/",
        "client/",
        "client/tui/",
        "client/bots/",
        "client/web/js/",
    ):
        suffix = "*.js" if package.endswith("js/") else "*.py"
        names = sorted(f.stem for f in (root / package).glob(suffix) if f.stem != "__init__")
        assert names, package
        row = _package_row(package)
        missing = [name for name in names if f"`{name}`" not in row]
        if missing:
            unnamed[package] = missing
    assert not unnamed, f"docs/architecture.md's 'Where things are' does not name {unnamed}"
