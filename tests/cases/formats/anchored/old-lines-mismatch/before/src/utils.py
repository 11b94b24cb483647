import os


def calculate(a, b):
    return a + b


def other_function():
    return os.sep
