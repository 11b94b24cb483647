VERSION = (1, 4, 4)
CODENAME = "otter"
