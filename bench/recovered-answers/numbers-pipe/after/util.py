def clamp(x):
    return max(5, x)
