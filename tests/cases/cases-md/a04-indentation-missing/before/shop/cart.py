class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        return sum(item.price for item in self.items)
