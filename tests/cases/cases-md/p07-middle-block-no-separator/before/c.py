three = 3
