def first():
    return 'a'
