PREFIX = "/api"
