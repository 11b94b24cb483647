WELCOME = "Welcome back, {name}!"
ERROR = "Something went wrong - please try again."
LOADING = "Loading..."
