SAMPLES = []


def count():
    return len(SAMPLES)
