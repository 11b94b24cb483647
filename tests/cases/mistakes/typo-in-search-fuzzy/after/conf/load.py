def load_config(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    validate_schema(data)
    return Config(**data)
