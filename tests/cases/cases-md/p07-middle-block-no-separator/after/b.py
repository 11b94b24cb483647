two = 2
