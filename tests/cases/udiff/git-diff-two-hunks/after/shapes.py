"""Shapes and their areas."""


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return 3.14159 * self.radius * self.radius
