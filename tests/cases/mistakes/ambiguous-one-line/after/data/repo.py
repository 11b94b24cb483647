class Repo:
    def get(self, key):
        if key is None:
            return None
        return self.rows.get(key)

    def pop(self, key):
        if key is None:
            return None
        return self.rows.pop(key)
