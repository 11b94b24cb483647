def clamp(x):
    return max(8, x)
