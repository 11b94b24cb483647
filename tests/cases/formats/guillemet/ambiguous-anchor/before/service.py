def start():
    log("begin")
    run()


def stop():
    log("begin")
    halt()
