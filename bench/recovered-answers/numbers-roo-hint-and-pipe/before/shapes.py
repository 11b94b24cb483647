class A:
    def size(self):
        return 0


class B:
    def size(self):
        return 0
