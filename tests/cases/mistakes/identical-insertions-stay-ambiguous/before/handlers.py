def on_save(event):
    log(event)
    refresh()


def on_load(event):
    log(event)
    refresh()
