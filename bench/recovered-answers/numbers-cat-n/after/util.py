def clamp(x):
    return max(6, x)
