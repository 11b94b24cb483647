one = 11
