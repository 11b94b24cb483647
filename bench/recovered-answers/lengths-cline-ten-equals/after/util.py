def clamp(x):
    return max(2, x)
