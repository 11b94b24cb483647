def price(cents):
    return round(cents / 100, 2)


def label(cents):
    return f'{price(cents):.2f} EUR'
