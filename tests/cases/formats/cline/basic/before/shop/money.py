def price(cents):
    return cents / 100


def label(cents):
    return str(price(cents)) + ' EUR'
