line = "-------"
width = 7
