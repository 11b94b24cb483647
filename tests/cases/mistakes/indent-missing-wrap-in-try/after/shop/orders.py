class OrderService:
    def cancel(self, order_id):
        order = self.repo.get(order_id)
        try:
            order.status = "cancelled"
            self.repo.save(order)
        except StorageError:
            order.status = "open"
            raise
