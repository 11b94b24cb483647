"""User lookups."""

from dataclasses import dataclass


@dataclass
class User:
    id: int
    name: str
    email: str


_USERS: dict[int, User] = {}


def get_user(user_id: int) -> User:
    return _USERS[user_id]


def add_user(user: User) -> None:
    _USERS[user.id] = user
