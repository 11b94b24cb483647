EXTRA = True
