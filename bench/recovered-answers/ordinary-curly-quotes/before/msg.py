MESSAGE = "Don't panic"
