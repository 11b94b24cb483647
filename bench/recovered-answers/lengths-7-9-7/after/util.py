def clamp(x):
    return x if x > 0 else 0
