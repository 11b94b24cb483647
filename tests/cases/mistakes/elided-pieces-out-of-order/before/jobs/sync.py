def sync(source, target):
    rows = source.fetch()
    for row in rows:
        target.upsert(row)
    target.flush()
    return len(rows)


def describe():
    return "sync"
