two = 3
