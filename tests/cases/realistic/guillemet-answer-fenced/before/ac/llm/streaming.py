def stream_chat(messages):
    response = call_model(messages)
    text = collect(response)
    return text
