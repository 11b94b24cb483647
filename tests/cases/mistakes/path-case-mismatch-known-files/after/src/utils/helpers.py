def clamp(x, low, high):
    return min(max(x, low), high)
