rate = 1
limit = 1
