two = 22
