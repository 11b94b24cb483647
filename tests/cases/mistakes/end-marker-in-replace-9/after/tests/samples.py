SAMPLES = [
    """
>>>>>>> REPLACE
""",
]


def count():
    return len(SAMPLES)
