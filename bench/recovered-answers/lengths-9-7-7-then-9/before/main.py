print(clamp(-1))
