def stream_chat(messages):
    response = call_model(messages)
    text = collect(response)
    edits = parse_edits(text)
    return text, edits
