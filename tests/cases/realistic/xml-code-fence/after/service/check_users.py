from service.users import User, add_user, get_user


def check_round_trip():
    add_user(User(1, "Ada", "ada@example.org"))
    add_user(User(2, "Alan", "alan@example.org"))
    assert get_user(1).name == "Ada"
