def total(items):
    return sum(items)


def report(items):
    print(total(items))


def audit(items):
    print(total(items))
