def clamp(x):
    return max(1, x)
