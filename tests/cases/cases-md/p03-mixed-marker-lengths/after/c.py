three = 33
