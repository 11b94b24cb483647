def load_a(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    validate_schema(data)
    return data


def load_b(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    validate_schema(data)
    return data
