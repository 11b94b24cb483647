VERSION = (2, 0, 0)
CODENAME = "otter"
