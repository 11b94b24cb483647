CONFLICT_EXAMPLE = """\
<<<<<<< HEAD
ours
=======
theirs
>>>>>>> feature
"""


def explain():
    return CONFLICT_EXAMPLE
