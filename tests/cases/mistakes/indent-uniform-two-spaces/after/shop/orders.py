class OrderService:
    def __init__(self, repo):
        self.repo = repo

    def place(self, order):
        if not order.items:
            raise ValueError("empty order")
        self.repo.save(order)
        return order.id

    def cancel(self, order_id):
        order = self.repo.get(order_id)
        order.status = "cancelled"
        self.repo.save(order)
