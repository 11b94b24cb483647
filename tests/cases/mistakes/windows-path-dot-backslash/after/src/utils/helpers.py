def clamp(x, low, high):
    return sorted((low, x, high))[1]
