"""Accounts: a guest claims a username with a password; anyone logs in with them on any
device and gets a token, as ``hello`` gives; logging out revokes that token; a new
password revokes every one, as a register does the guest's, and gives the session a new
one. A guest may change the name it goes by (an account's name is its username)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.protocol.base import PlayerName, Reply, Request, RequestId

#: Password lengths accepted (characters).
PASSWORD_MIN = 8
PASSWORD_MAX = 128

Password = Annotated[str, Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)]
Username = Annotated[str, Field(min_length=1, max_length=64)]


class Register(Request):
    """The sender (a guest, after hello) becomes an account named ``username``; their
    races, token and player id stay theirs."""

    type: Literal["register"] = "register"
    id: RequestId
    username: Username
    password: Password


class Login(Request):
    """Instead of ``hello``: the account's player on this connection, and a new token for
    this device. Answered by ``welcome``."""

    type: Literal["login"] = "login"
    id: RequestId
    username: Username
    password: Annotated[str, Field(min_length=1, max_length=PASSWORD_MAX)]
    legal_moves: bool = False
    #: As ``hello``'s: acks carry only the piles their move changed.
    changed_piles: bool = False


class Logout(Request):
    """Revoke the token this connection said hello (or logged in) with; the server closes
    the connection after ``ok``."""

    type: Literal["logout"] = "logout"
    id: RequestId


class ChangePassword(Request):
    """A new password; every token of the account is revoked, this connection's too: it
    goes on with the new one its ``ok`` carries."""

    type: Literal["change_password"] = "change_password"
    id: RequestId
    old_password: Annotated[str, Field(min_length=1, max_length=PASSWORD_MAX)]
    new_password: Password


class Account(Reply):
    """Reply to ``register``: the account as it now is, with the session's new token (the
    guest's stops working)."""

    type: Literal["account"] = "account"
    id: RequestId | None = None
    player_id: str
    username: str
    bot: bool = False
    #: Secret, as ``welcome``'s: resumes the account from now on (None from a server
    #: older than it, whose guest token went on working).
    token: str | None = None


class Rename(Request):
    """A guest's new name, shown from now on wherever the guest is seated and in the
    races it has not finished; the results of races over keep the name raced under."""

    type: Literal["rename"] = "rename"
    id: RequestId
    name: PlayerName


class Renamed(Reply):
    """Reply to ``rename``: the name as the server keeps it (NFC-normalized). Also an
    event (no ``id``) to every session of the player when its name changed on one of them
    (a rename, or a register: then with the account's ``username``)."""

    type: Literal["renamed"] = "renamed"
    id: RequestId | None = None
    name: str
    username: str | None = None


Requests = Register | Login | Logout | ChangePassword | Rename
Replies = Account | Renamed
