def clamp(x):
    return max(10, x)
