VERSION = (1, 4, 5)
CODENAME = "otter"
