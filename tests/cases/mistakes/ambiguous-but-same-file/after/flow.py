if ok:
    go()
else:
    stop()
rest()
