def parse(text):
    return []
