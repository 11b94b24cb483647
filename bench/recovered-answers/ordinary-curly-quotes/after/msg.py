MESSAGE = "Don't panic!"
