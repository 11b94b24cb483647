two = 2  # second
