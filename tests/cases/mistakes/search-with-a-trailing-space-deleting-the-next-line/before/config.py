WIDTH = 80
legacy_mode = True
LEGACY_PATH = "/opt/old"
HEIGHT = 24
