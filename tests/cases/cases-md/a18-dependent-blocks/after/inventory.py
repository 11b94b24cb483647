stock = {}
count = 0


def restock(item: str, amount: int) -> None:
    stock[item] = stock.get(item, 0) + amount
