def process():
    step_one()
    step_two(retry=True)


def cleanup():
    remove_temp()
