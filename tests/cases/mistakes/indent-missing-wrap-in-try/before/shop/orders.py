class OrderService:
    def cancel(self, order_id):
        order = self.repo.get(order_id)
        order.status = "cancelled"
        self.repo.save(order)
