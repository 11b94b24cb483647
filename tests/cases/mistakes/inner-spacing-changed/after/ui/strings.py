WELCOME = "Welcome back, {name}!"
ERROR = "Something went wrong - try again."
LOADING = "Loading…"
