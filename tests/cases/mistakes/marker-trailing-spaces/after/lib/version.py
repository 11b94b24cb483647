VERSION = (1, 5, 0)
CODENAME = "otter"
