def process():
    step_one()
    step_two_updated()
    step_three()


def cleanup():
    remove_temp()
