one = 2
