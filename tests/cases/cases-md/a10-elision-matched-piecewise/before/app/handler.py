def handler(event):
    payload = parse(event)
    check(payload)
    store(payload)
    return respond(200)


def health():
    return {"ok": True}
