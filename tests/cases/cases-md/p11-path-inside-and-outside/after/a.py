one = 1  # first
