def before_run():
    pass
