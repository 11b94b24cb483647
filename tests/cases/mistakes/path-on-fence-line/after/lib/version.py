VERSION = (1, 4, 6)
CODENAME = "otter"
