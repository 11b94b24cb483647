def enable():
    state = True
    return state


def disable():
    state = False
    return state
