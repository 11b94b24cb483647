def process():
    step_one()
    step_three()


def cleanup():
    remove_temp()
