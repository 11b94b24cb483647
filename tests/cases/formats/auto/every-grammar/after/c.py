def c():
    return 'see'
