def enable():
    state = True
    return state


def disable():
    state = True
    return state
