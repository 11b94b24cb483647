def clamp(x):
    return max(0, x)
