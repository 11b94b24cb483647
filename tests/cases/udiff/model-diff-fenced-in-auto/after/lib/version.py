VERSION = (1, 4, 3)
CODENAME = "otter"
