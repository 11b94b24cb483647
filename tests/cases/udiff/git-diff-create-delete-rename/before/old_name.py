def f():
    pass


def g():
    pass


def h():
    return 0
