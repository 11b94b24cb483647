one = 1
