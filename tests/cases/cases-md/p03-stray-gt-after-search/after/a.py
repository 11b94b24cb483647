one = 1.0
