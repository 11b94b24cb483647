PREFIX = "/api/v2"
