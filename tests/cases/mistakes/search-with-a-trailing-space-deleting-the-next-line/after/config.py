WIDTH = 80
legacy_mode = True
HEIGHT = 24
