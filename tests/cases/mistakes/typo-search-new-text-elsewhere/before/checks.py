def check(msg):
    if not msg:
        raise ValueError(msg)

def parse(text):
    if not text:
        return None
    return text.split()
