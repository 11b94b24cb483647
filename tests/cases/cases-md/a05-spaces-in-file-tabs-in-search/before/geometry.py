def area(w, h):
    if w < 0:
        raise ValueError("w")
    return w * h
