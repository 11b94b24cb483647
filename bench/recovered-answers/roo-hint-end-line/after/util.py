def clamp(x, low=0):
    return max(low, x)
