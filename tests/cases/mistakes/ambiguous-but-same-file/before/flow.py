if ok:
    go()
else:
    stop()
else:
    stop()
rest()
