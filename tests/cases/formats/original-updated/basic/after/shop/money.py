def price(cents):
    return round(cents / 100, 2)


def label(cents):
    return str(price(cents)) + ' EUR'
