def on_save(event):
    log(event)
    redraw()


def on_load(event):
    log(event)
    redraw()
