def add(a, b):
    """Add two numbers.

    >>> add(1, 2)
    3
    """
    return a + b
