"""Small arithmetic helpers."""


def add(x, y):
    return x + y


def subtract(a, b):
    return a - b


def average(values):
    if not values:
        return 0
    return sum(values) / len(values)
