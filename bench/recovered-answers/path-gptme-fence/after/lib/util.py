def clamp(x):
    return max(9, x)
