def clamp(x: float, low: float, high: float) -> float:
    return max(low, min(x, high))
