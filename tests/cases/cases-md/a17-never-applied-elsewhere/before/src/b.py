def second():
    return 'b'


def first():
    return 'b-first'
