three = 300
