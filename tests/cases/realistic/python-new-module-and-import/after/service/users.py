"""User lookups."""

from dataclasses import dataclass

from service.validation import valid_email


@dataclass
class User:
    id: int
    name: str
    email: str


_USERS: dict[int, User] = {}


def get_user(user_id: int) -> User:
    return _USERS[user_id]


def add_user(user: User) -> None:
    if not valid_email(user.email):
        raise ValueError(f"invalid email: {user.email}")
    _USERS[user.id] = user
