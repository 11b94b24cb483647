def clamp(x, low, high):
    if low > high:
        raise ValueError("low > high")
    return max(low, min(x, high))
