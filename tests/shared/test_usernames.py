"""Usernames: the characters one may use, and the skeleton that makes look-alikes one name."""

from __future__ import annotations

import pytest

from shared.usernames import check_username, name_keys, username_key

STRAY = "a combining mark goes after a letter, not at the start or after a digit, space or sign"


@pytest.mark.parametrize(
    "username",
    [
        "Ada_Lovelace",
        "ada-l0velace",
        "Zo\u00eb",
        "\u0141\u00f3d\u017a-7",
        "\u674e\u5c0f\u9f8d",
        "I\u015f\u0131k",  # Turkish, with a dotless i
        "\u0410\u043d\u043d\u0430_1",  # all Cyrillic
        "\u0930\u093e\u0939\u0941\u0932",  # Rahul in Devanagari: vowel signs are combining marks
        "\u0e2a\u0e21\u0e28\u0e31\u0e01\u0e14\u0e34\u0e4c",  # Somsak in Thai, with its tone marks
        "\u0627\u0644\u0645\u064f\u0639\u0650\u0632\u0651",  # Arabic with its vowel points
        "\u5c71\u7530\u305f\u308d\u3046",  # Yamada Tarou: Han with hiragana
        "\u4f50\u3005\u6728",  # Sasaki, with the iteration mark
        "\u30e4\u30de\u30c0\u30bf\u30ed\u30fc",  # katakana with the long-vowel mark
        "\uae40\ubbfc\uc900",  # Korean Hangul
        "Taro_\u5c71\u7530",  # Latin with Han
        "\u30b8\u30e7\u30f3\u30fb\u30b9\u30df\u30b9",  # John Smith in katakana, parted by a middle dot
    ],
)
def test_names_of_real_alphabets_are_usernames(username: str) -> None:
    assert check_username(username) == username


@pytest.mark.parametrize(
    ("username", "reason"),
    [
        ("\u0251lice", "a username has no phonetic letters, not '\u0251'"),  # LATIN SMALL LETTER ALPHA
        ("a\u01c0ice", "a username has no letters like '\u01c0' (a click, glottal stop or tone mark)"),
        ("al\u0661ce", "a username's digits are 0-9, not '\u0661'"),  # ARABIC-INDIC DIGIT ONE
        ("\u1d00lice", "a username has no phonetic letters, not '\u1d00'"),  # small capital A
        ("ali\u01bbe", "a username has no letters like '\u01bb' (a click, glottal stop or tone mark)"),
        ("bob\uff11", "a username's digits are 0-9, not '\uff11'"),  # FULLWIDTH DIGIT ONE
        ("alice\u3164", "a username has no characters that draw nothing, such as U+3164"),  # HANGUL FILLER
        ("ali\ufe0fce", "a username has no characters that draw nothing, such as U+FE0F"),  # selector
        ("_\u0301ada", STRAY),
        ("adb\u0300\u0301\u0302\u0303", "a letter carries at most 3 combining marks"),
        ("\u0430\u5c71\u7530", "a username uses one script, not cyrillic and han mixed"),
        ("\u5c71\u7530\uae40\u305f", "a username uses one script, not han and hangul and hiragana mixed"),
        ("\u30fc\u30fc\u30fc", "a username needs at least one letter"),
        ("\u30fb\u30b8\u30e7\u30f3", "a username's \u30fb goes between two Japanese words"),
        ("\u30b8\u30e7\u30f3\u30fb\u30fb\u30b9", "a username's \u30fb goes between two Japanese words"),
        ("abc\u30fbdef", "a username's \u30fb goes between two Japanese words"),
    ],
)
def test_look_alike_letters_and_digits_are_refused_in_a_username(username: str, reason: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_username(username)
    assert str(refused.value) == reason


@pytest.mark.parametrize(
    "imitation",
    [
        "\u0251lice",  # LATIN SMALL LETTER ALPHA
        "a\u01c0ice",  # LATIN LETTER DENTAL CLICK
        "al\u0661ce",  # ARABIC-INDIC DIGIT ONE
        "al\u0131ce",  # LATIN SMALL LETTER DOTLESS I
        "al\u0196ce",  # LATIN CAPITAL LETTER IOTA
        "\u1d00\u029f\u026a\u1d04\u1d07",  # small capitals
        "\uff41lice",  # FULLWIDTH LATIN SMALL LETTER A
        "ALICE",
    ],
)
def test_look_alikes_share_the_skeleton_of_the_name_they_imitate(imitation: str) -> None:
    assert username_key(imitation) == username_key("alice")


@pytest.mark.parametrize("other", ["alice_", "alicia", "malice", "al_ice"])
def test_different_names_keep_different_skeletons(other: str) -> None:
    assert username_key(other) != username_key("alice")


@pytest.mark.parametrize("name", ["alice.", "a l i c e", "Alice!", "al.ice", "-alice-", "a.l.\u0131.c.e"])
def test_a_guest_name_with_spaces_or_punctuation_reads_as_the_username(name: str) -> None:
    assert username_key("alice") in name_keys(name)


def test_a_guest_names_combining_marks_stay_in_its_words() -> None:
    rahul = "\u0930\u093e\u0939\u0941\u0932"
    assert name_keys(f"{rahul}.") == {username_key(rahul)}


def test_a_guest_name_reads_its_spaces_and_dots_as_a_usernames_underscores() -> None:
    assert username_key("ada_l") in name_keys("Ada L.") and username_key("ada_l") in name_keys("ada.l")


def test_a_japanese_names_middle_dot_reads_as_an_underscore() -> None:
    dotted = "\u30b8\u30e7\u30f3\u30fb\u30b9\u30df\u30b9"
    assert username_key(dotted) == username_key("\u30b8\u30e7\u30f3_\u30b9\u30df\u30b9")
    assert username_key(dotted) == username_key("\u30b8\u30e7\u30f3-\u30b9\u30df\u30b9")
    assert username_key(dotted) != username_key("\u30b8\u30e7\u30f3\u30b9\u30df\u30b9")
