def c():
    return 'C'
