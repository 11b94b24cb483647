three = 3.0
