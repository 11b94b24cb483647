name = 'x'
print(“Hello, world”)
