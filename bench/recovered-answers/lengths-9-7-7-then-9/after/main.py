print(clamp(-2))
