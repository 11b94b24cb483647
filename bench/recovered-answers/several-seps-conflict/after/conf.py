limit = 20
name = 'x'
