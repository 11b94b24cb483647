def f():
    return 1


def g():
    return 1


def h():
    return 0
