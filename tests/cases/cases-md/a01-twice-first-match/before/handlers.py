def on_open(event):
    log(event)
    notify(event)


def on_close(event):
    log(event)
    notify(event)


def on_error(event):
    log(event)
