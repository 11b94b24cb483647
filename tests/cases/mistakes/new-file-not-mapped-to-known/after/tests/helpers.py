def make_range():
    return (0, 10)
