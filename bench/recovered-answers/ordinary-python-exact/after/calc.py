def add(a, b, c=0):
    return a + b + c


def sub(a, b):
    return a - b
