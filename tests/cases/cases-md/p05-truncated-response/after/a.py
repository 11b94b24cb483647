one = 100
