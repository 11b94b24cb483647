def sync(source, target):
    rows = source.fetch()
    for row in rows:
        target.upsert(row)
    target.flush()
    return len(rows) if rows else 0


def describe():
    return "sync"
