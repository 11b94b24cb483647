def clamp(x, low=0, high=1):
    return max(low, min(x, high))
