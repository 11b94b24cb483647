stock = {}
count = 0


def restock(item, amount):
    stock[item] = stock.get(item, 0) + amount
