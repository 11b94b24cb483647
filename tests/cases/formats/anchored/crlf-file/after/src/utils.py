import os


def calculate(a, b):
    total = a + b
    return total


def other_function():
    return os.sep
