"""Usernames: what a valid one is, and the key that makes look-alikes one name.

A username is 3 to 20 characters after NFC normalization: letters and digits of one
script (Latin, Cyrillic, Greek, ...), plus ``_`` and ``-``. Mixing scripts is refused,
as browsers refuse it in domain names: "paypal" with a Cyrillic "a" is not a name. So are
the characters that exist to imitate or transcribe rather than to spell: digits other
than 0-9, phonetic letters (a Latin alpha, small capitals) and letters without case in a
script with case (the clicks of some African alphabets). Python has no table of Unicode's
confusables (UTS #39), so the look-alikes below are the known ones, written out.

Two usernames are the same account when their *skeletons* are equal: case folded,
accents dropped, letters that look like Latin ones (a Cyrillic or Greek "o") read
as those, and the digits and letters people confuse (``0``/``o``, ``1``/``l``/``i``)
read alike, ``_`` and ``-`` too, any script's digits as 0-9. A guest's name (which may
hold spaces and punctuation) is too like a username when one of its :func:`name_keys` is
the username's skeleton.

>>> check_username("  Ada_Lovelace ")
'Ada_Lovelace'
>>> username_key("Ada_Lovelace") == username_key("ADA-L0VELACE")
True
>>> username_key("\u0440\u0430\u0443\u0440\u0430") == username_key("paypa")  # all Cyrillic
True
>>> username_key("Ola") == username_key("0la") == username_key("OIa")
True
"""

from __future__ import annotations

import unicodedata
from typing import Final

from shared.name_chars import invisible_problem, is_mark, mark_problem

USERNAME_MIN: Final = 3
USERNAME_MAX: Final = 20

#: Letters of other scripts that look like a Latin letter, and the letter they look like
#: (written as escapes: the letters themselves would look like Latin ones here too).
_FOREIGN: Final = {
        # Cyrillic
        "\u0430": "a", "\u0432": "b", "\u0435": "e", "\u0451": "e", "\u043a": "k", "\u043c": "m",
        "\u043d": "h", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0442": "t", "\u0443": "y",
        "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0457": "i", "\u0458": "j", "\u04bb": "h",
        "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u044c": "b",
        # Greek
        "\u03b1": "a", "\u03b2": "b", "\u03b5": "e", "\u03b7": "n", "\u03b9": "i", "\u03ba": "k",
        "\u03bd": "v", "\u03bf": "o", "\u03c1": "p", "\u03c4": "t", "\u03c5": "u", "\u03c7": "x",
        "\u03c9": "w", "\u03b6": "z",
}  # fmt: skip
#: Latin letters of phonetic notation, African alphabets and small capitals that look
#: like a basic Latin letter (after case folding; NFKD maps most others, such as a script l).
_LATIN: Final = {
        "\u0251": "a", "\u0252": "a", "\u1d00": "a", "\u0299": "b", "\u0253": "b", "\u0185": "b",
        "\u1d04": "c", "\u1d05": "d", "\u0257": "d", "\u025b": "e", "\u1d07": "e", "\u0261": "g",
        "\u0262": "g", "\u029c": "h", "\u0131": "i", "\u0269": "i", "\u026a": "i", "\u0237": "j",
        "\u1d0a": "j", "\u1d0b": "k", "\u029f": "l", "\u01c0": "l", "\u01c3": "l", "\u0280": "r",
        "\u027e": "r", "\u1d0d": "m", "\u0274": "n", "\u1d0f": "o", "\u0254": "c", "\u1d18": "p",
        "\ua731": "s", "\u1d1b": "t", "\u1d1c": "u", "\u028b": "u", "\u1d20": "v", "\u028c": "v",
        "\u1d21": "w", "\u028f": "y", "\u1d22": "z", "\u01c1": "ll",
}  # fmt: skip
#: Characters people confuse among themselves, once case is folded (the katakana middle
#: dot is a Japanese name's separator, as ``_`` and ``-`` are a username's).
_CONFUSED: Final = {"0": "o", "1": "l", "i": "l", "-": "_", "\u30fb": "_"}
_LOOKALIKES: Final = str.maketrans(
    {
        **{char: _CONFUSED.get(latin, latin) for char, latin in _FOREIGN.items()},
        **{char: "".join(_CONFUSED.get(c, c) for c in latin) for char, latin in _LATIN.items()},
        **_CONFUSED,
    }
)
#: Blocks of phonetic notation (IPA, modifier letters, phonetic extensions): letters for
#: transcribing sounds, most of them look-alikes of ordinary ones, and no one's alphabet.
_PHONETIC: Final = ((0x0250, 0x02FF), (0x1D00, 0x1DBF))
#: Scripts with case, in which a letter without case is a click, glottal stop or tone
#: mark (U+01C0, U+0294, U+01BB) rather than a letter of a word.
_CASED_SCRIPTS: Final = frozenset({"LATIN", "GREEK", "CYRILLIC", "ARMENIAN"})


#: Japanese writing's marks that are letters of no one script (modifier letters): the
#: iteration marks and the long-vowel mark, with the script each belongs with.
_JAPANESE_MARKS: Final = {
    "\u3005": "CJK",  # 々, repeats the Han character before it
    "\u309d": "HIRAGANA",
    "\u309e": "HIRAGANA",
    "\u30fc": "KATAKANA",  # ー, the long vowel (in hiragana words too)
    "\u30fd": "KATAKANA",
    "\u30fe": "KATAKANA",
}
#: The katakana middle dot, which parts the words of a Japanese name (``ジョン・スミス``).
_MIDDLE_DOT: Final = "\u30fb"
#: The scripts whose words it may part.
_DOTTED_SCRIPTS: Final = frozenset({"CJK", "HIRAGANA", "KATAKANA"})
#: The scripts written together in one language's words, as browsers allow them together
#: in domain names (Unicode's "highly restrictive" level, UTS #39): Han with Japanese
#: kana, with Korean Hangul, with Bopomofo; Latin may join any of these.
_SCRIPTS_TOGETHER: Final = (
    frozenset({"CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"CJK", "HANGUL"}),
    frozenset({"CJK", "BOPOMOFO"}),
)
#: How a script's name (the first word of its letters' Unicode names) is said.
_SCRIPT_WORDS: Final = {"CJK": "han"}


def _script(char: str) -> str | None:
    """The script of a letter (the first word of its Unicode name); None for a digit,
    ``_``, ``-`` or a combining mark of no one script (an accent), which scripts share.

    >>> _script("a"), _script("\u30fc"), _script("\u0301"), _script("\u093e")
    ('LATIN', 'KATAKANA', None, 'DEVANAGARI')
    """
    if char in "_-" or char == _MIDDLE_DOT or unicodedata.category(char) == "Nd":
        return None
    if char in _JAPANESE_MARKS:
        return _JAPANESE_MARKS[char]
    script = unicodedata.name(char, "UNKNOWN").split(" ")[0]
    return None if script == "COMBINING" else script


def _mixed(scripts: set[str]) -> bool:
    """Whether letters of ``scripts`` together are a mix no one writes a name in.

    >>> _mixed({"LATIN"}), _mixed({"CJK", "HIRAGANA", "KATAKANA", "LATIN"}), _mixed({"CYRILLIC", "LATIN"})
    (False, False, True)
    """
    if len(scripts) <= 1:
        return False
    return not any(scripts - {"LATIN"} <= together for together in _SCRIPTS_TOGETHER)


def check_username(text: str) -> str:
    """The username as stored and shown (NFC, trimmed), or ``ValueError`` saying why not."""
    name = unicodedata.normalize("NFC", text.strip())
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise ValueError(f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters")
    for char in name:
        if not (
            char in "_-"
            or char == _MIDDLE_DOT
            or char in _JAPANESE_MARKS
            or unicodedata.category(char) in ("Lu", "Ll", "Lt", "Lo", "Nd")
            or is_mark(char)
        ):
            raise ValueError(f"a username has letters, digits, _ and - only, not {char!r}")
        _refuse_a_look_alike(char)
    problem = invisible_problem(name, "username") or mark_problem(name) or _dot_problem(name)
    if problem is not None:
        raise ValueError(problem)
    scripts = {s for s in map(_script, name) if s is not None}
    if _mixed(scripts):
        words = sorted(_SCRIPT_WORDS.get(script, script.lower()) for script in scripts)
        raise ValueError(f"a username uses one script, not {' and '.join(words)} mixed")
    if not any(unicodedata.category(c) in ("Lu", "Ll", "Lt", "Lo") for c in name):
        raise ValueError("a username needs at least one letter")
    return name


def _dot_problem(name: str) -> str | None:
    """What is wrong with the katakana middle dots of ``name``: each must stand between
    two Japanese letters (kana or han), as it parts a name's words.

    >>> _dot_problem("\u30b8\u30e7\u30f3\u30fb\u30b9\u30df\u30b9") is None  # John Smith in katakana
    True
    >>> _dot_problem("ab\u30fbcd")
    "a username's \u30fb goes between two Japanese words"
    """
    for index, char in enumerate(name):
        if char != _MIDDLE_DOT:
            continue
        around = name[index - 1 : index] + name[index + 1 : index + 2]
        if index == 0 or len(around) < 2 or any(_script(c) not in _DOTTED_SCRIPTS for c in around):
            return f"a username's {_MIDDLE_DOT} goes between two Japanese words"
    return None


def _refuse_a_look_alike(char: str) -> None:
    """``ValueError`` for a letter or digit of a username that only imitates an ordinary
    one: a digit other than 0-9, a phonetic letter, a letter without case in a script
    with case.

    >>> _refuse_a_look_alike("\u0661")  # ARABIC-INDIC DIGIT ONE  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: a username's digits are 0-9, not ...
    >>> _refuse_a_look_alike("\u0251")  # LATIN SMALL LETTER ALPHA  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: a username has no phonetic letters, not ...
    >>> _refuse_a_look_alike("\u01c0")  # LATIN LETTER DENTAL CLICK  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: a username has no letters like ... (a click, glottal stop or tone mark)
    >>> _refuse_a_look_alike("\u00e9"), _refuse_a_look_alike("\u674e")  # é, 李
    (None, None)
    """
    category = unicodedata.category(char)
    if category == "Nd" and not "0" <= char <= "9":
        raise ValueError(f"a username's digits are 0-9, not {char!r}")
    if any(low <= ord(char) <= high for low, high in _PHONETIC):
        raise ValueError(f"a username has no phonetic letters, not {char!r}")
    if category == "Lo" and _script(char) in _CASED_SCRIPTS:
        raise ValueError(f"a username has no letters like {char!r} (a click, glottal stop or tone mark)")


def username_key(name: str) -> str:
    """The skeleton two look-alike usernames share (see the module's docstring): the name
    decomposed (NFKD, which also reads compatibility forms such as a script l or full-width
    letters as the plain ones), accents dropped, case folded, every decimal digit read as
    its 0-9 and the look-alike letters as the Latin ones they imitate.

    >>> username_key("alice") == username_key("\u0251lice") == username_key("a\u01c0ice")
    True
    >>> username_key("al\u0661ce") == username_key("alice") == username_key("AL\u0131CE")
    True
    >>> username_key("alice") == username_key("alice_")
    False
    """
    decomposed = unicodedata.normalize("NFKD", name.strip())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    digits = "".join(str(unicodedata.decimal(c)) if unicodedata.category(c) == "Nd" else c for c in bare)
    return digits.casefold().translate(_LOOKALIKES)


#: The look-alikes the skeleton read before digits of every script and the Latin ones
#: above were added: the accounts registered then are stored under that skeleton.
_FORMER_LOOKALIKES: Final = str.maketrans(
    {**{char: _CONFUSED.get(latin, latin) for char, latin in _FOREIGN.items()}, **_CONFUSED}
)


def username_keys(name: str) -> tuple[str, ...]:
    """Where an account named ``name`` may be stored: under its skeleton, or, registered
    before the skeleton read other scripts' digits and the Latin look-alikes, under the
    skeleton of then (differing only for names holding one of those, such as a Turkish
    dotless i).

    >>> username_keys("Ada")
    ('ada',)
    >>> username_keys("I\u015f\u0131k") == ("lslk", "ls\u0131k")
    True
    """
    decomposed = unicodedata.normalize("NFKD", name.strip())
    former = (
        "".join(c for c in decomposed if not unicodedata.combining(c))
        .casefold()
        .translate(_FORMER_LOOKALIKES)
    )
    return tuple(dict.fromkeys((username_key(name), former)))


def name_keys(name: str) -> set[str]:
    """The skeletons of the usernames a guest's ``name`` (which may hold spaces, ``.``
    and other punctuation; its combining marks are part of its words) is too like: the
    name with each run of spaces and punctuation left out, and with each read as ``_``
    (as in a username).

    >>> sorted(name_keys("Alice.")), sorted(name_keys("a l i c e")), sorted(name_keys("al.ice"))
    (['allce'], ['a_l_l_c_e', 'allce'], ['al_lce', 'allce'])
    >>> username_key("alice") in name_keys("_alice-") and username_key("a_b") in name_keys("a. b")
    True
    """
    words = _words(name)
    return {username_key("".join(words)), username_key("_".join(words))}


def seat_key(name: str) -> str:
    """What two seats of one race must not share, so that a racer who only looks like
    another is numbered apart from them (``root (2)``): the name's skeleton, its spaces and
    punctuation left out.

    >>> seat_key("root") == seat_key("r\u043e\u043et") == seat_key("ROOT") == seat_key("r.o o-t")
    True
    >>> seat_key("root") == seat_key("roots")
    False
    """
    return username_key("".join(_words(name)))


def _words(name: str) -> list[str]:
    """A guest name's runs of letters, digits and marks (NFKC), without what is between."""
    bare = unicodedata.normalize("NFKC", name.strip())
    kept = [c if unicodedata.category(c)[0] in "LNM" else " " for c in bare]
    return "".join(kept).split()
