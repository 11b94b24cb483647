def area(w, h):
    if w < 0 or h < 0:
        raise ValueError("negative size")
    return w * h
