def load(path):
    return open(path).read()


def save(path, text):
    with open(path, 'w') as handle:
        handle.write(text)
    return open(path).read()
