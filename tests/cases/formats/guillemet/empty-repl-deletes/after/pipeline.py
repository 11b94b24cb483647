def process():
    step_one()
    step_two()
