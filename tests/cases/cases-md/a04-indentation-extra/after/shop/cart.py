class Cart:
    def __init__(self):
        self.items = []
        self.discount = 0

    def total(self):
        return sum(item.price for item in self.items)
