stock = {}
count = 10
