def process():
    step_one()
    step_two()


def cleanup():
    remove_temp()
