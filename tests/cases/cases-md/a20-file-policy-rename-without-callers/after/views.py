def render(rows: list[str]) -> str:
    return "\n".join(rows)
