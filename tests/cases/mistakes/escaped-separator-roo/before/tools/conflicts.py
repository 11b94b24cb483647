CONFLICT_EXAMPLE = """\
<<<<<<< HEAD
mine
=======
theirs
>>>>>>> feature
"""


def explain():
    return CONFLICT_EXAMPLE
