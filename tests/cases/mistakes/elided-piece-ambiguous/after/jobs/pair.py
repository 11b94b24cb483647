def first():
    prepare()
    return done()


def second():
    return done()
