"""Small arithmetic helpers."""


def add(a: float, b: float) -> float:
    return a + b


def subtract(a: float, b: float) -> float:
    return a - b


def average(values):
    if not values:
        return 0
    return sum(values) / len(values)
