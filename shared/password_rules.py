"""What a new password may not be: the account's username (or hold it), one character
repeated, or one of the passwords people choose most (tried first by anyone guessing).
Checked by the server on ``register`` and ``change_password``, and by the clients before
they send one.

>>> check_password("correct horse battery", "ada_l")
>>> check_password("Password1", "ada_l")
Traceback (most recent call last):
ValueError: that password is one of the most common: choose another
>>> check_password("zzzzzzzz", "ada_l")
Traceback (most recent call last):
ValueError: a password is not one character repeated
>>> check_password("my ADA_L rules", "ada_l")
Traceback (most recent call last):
ValueError: a password does not hold the username
"""

from __future__ import annotations

from typing import Final

#: Among the passwords of 8 characters or more seen most often in published leaks.
_MOST_COMMON: Final = """
    password password1 password12 password123 password1234 passw0rd p@ssw0rd p@ssword
    12345678 123456789 1234567890 12345678910 123123123 987654321 0987654321 11223344
    12341234 12121212 11111111 00000000 88888888 87654321 147258369 123456789a
    qwertyui qwertyuiop qwerty123 qwerty12 1qaz2wsx qazwsxedc qwer1234 1q2w3e4r
    1q2w3e4r5t zaq12wsx asdfghjk asdfghjkl zxcvbnm1 zxcvbnm123 abcd1234 abc12345
    abcdefgh a1b2c3d4 aa123456 iloveyou iloveyou1 iloveyou2 sunshine sunshine1
    princess princess1 football football1 baseball basketball superman batman123
    starwars trustno1 whatever computer internet welcome1 welcome123 letmein1
    letmein123 changeme changeme1 administrator admin123 admin1234 passport
    master123 michelle jennifer jordan23 charlie1 michael1 liverpool chelsea1
    arsenal1 midnight pokemon1 minecraft elephant butterfly chocolate cookie123
    dragon123 monkey123 shadow12 mustang1 hello123 freedom1 anything qwerty1234
    solitaire solitaire1 1234abcd 12qwaszx q1w2e3r4 q1w2e3r4t5 lovelove 99999999
    """
#: The most common passwords, compared case-folded.
COMMON: Final = frozenset(_MOST_COMMON.split())


def check_password(password: str, username: str) -> None:
    """``ValueError`` saying why ``password`` may not be the new one of ``username``."""
    folded = password.casefold()
    if username and username.casefold() in folded:
        raise ValueError("a password does not hold the username")
    if len(set(folded)) <= 1:
        raise ValueError("a password is not one character repeated")
    if folded in COMMON:
        raise ValueError("that password is one of the most common: choose another")
