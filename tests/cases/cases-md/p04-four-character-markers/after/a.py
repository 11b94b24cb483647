one = -1
