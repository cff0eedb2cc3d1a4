"""Guest names: letters of any script with the marks that spell them; nothing invisible."""

from __future__ import annotations

import unicodedata

import pytest

from shared.protocol import check_name


@pytest.mark.parametrize(
    "name",
    [
        "\u0930\u093e\u0939\u0941\u0932 \u0936\u0930\u094d\u092e\u093e",  # Rahul Sharma, Devanagari
        "\u0e2a\u0e21\u0e28\u0e31\u0e01\u0e14\u0e34\u0e4c",  # Somsak, Thai
        "\u0627\u0644\u0645\u064f\u0639\u0650\u0632\u0651",  # Arabic with vowel points
        "\u05d3\u05b8\u05bc\u05d5\u05b4\u05d3",  # David, Hebrew with its points
        "S\u0323o\u0323\u0300la",  # Yoruba: NFC leaves the grave accent a mark of its own
    ],
)
def test_a_name_may_hold_the_combining_marks_its_script_spells_with(name: str) -> None:
    assert check_name(name) == unicodedata.normalize("NFC", name)


STRAY = "a combining mark goes after a letter, not at the start or after a digit, space or sign"
NOT_A_NAME = "a name starts with a letter or digit and uses only letters, digits, spaces, '_', '-' and '.'"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("alice\u3164", "a name has no characters that draw nothing, such as U+3164"),  # HANGUL FILLER
        ("\u3164", "a name has no characters that draw nothing, such as U+3164"),
        ("bob\u1160", "a name has no characters that draw nothing, such as U+1160"),
        ("\uffa0ada", "a name has no characters that draw nothing, such as U+FFA0"),
        ("ada\u034f", "a name has no characters that draw nothing, such as U+034F"),  # grapheme joiner
        ("ada 7\u0301", STRAY),
        ("ada \u0301b", STRAY),
        ("adb\u0300\u0301\u0302\u0303", "a letter carries at most 3 combining marks"),
        ("\u0301ada", NOT_A_NAME),
        ("ada\u20dd", NOT_A_NAME),
        ("bob ", "a name does not end with a space"),
    ],
)
def test_a_name_refuses_invisible_characters_and_stray_or_piled_up_marks(name: str, reason: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_name(name)
    assert str(refused.value) == reason
