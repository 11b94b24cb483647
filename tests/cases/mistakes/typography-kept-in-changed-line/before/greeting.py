name = 'x'
print(“Hello”)
