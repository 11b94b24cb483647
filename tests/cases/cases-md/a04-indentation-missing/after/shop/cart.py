class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        if not self.items:
            return 0
        return sum(item.price for item in self.items)
