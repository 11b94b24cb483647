def clamp(x):
    return max(3, x)
