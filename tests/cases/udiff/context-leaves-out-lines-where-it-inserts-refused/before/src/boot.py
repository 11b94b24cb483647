def start():
    connect()
    warm_cache()
    serve()
