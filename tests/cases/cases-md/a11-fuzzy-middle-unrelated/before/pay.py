def pay(order):
    amount = order.total
    fee = amount * 0.02
    charge(order.card, amount + fee)
    return receipt(order)
