stock = {}
count = 0
TEMPLATES = ['$1', '$&', r'\1', r'\g<0>']


def restock(item, amount):
    stock[item] = stock.get(item, 0) + amount
