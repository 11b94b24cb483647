VERSION = (1, 4, 2)
CODENAME = "otter"
