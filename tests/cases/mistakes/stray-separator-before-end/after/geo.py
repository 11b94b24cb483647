import math


def area(r):
    return 3.14159 * r * r
