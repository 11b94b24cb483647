two = 2.0
