HOOKS = []
