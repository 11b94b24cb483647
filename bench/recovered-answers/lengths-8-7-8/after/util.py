def clamp(x):
    return max(0, min(x, 100))
