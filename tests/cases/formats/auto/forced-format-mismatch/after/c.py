def c():
    return 'c'
