import re

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)


def valid_email(address: str) -> bool:
    return EMAIL.match(address) is not None
