WELCOME = "Welcome back, {name}! Good to see you."
ERROR = "Something went wrong - try again."
LOADING = "Loading..."
