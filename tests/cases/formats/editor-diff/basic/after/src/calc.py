"""Small arithmetic helpers."""


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def average(values):
    if not values:
        raise ValueError("no values")
    return sum(values) / len(values)
