def run():
    setup()
    step_one()
    step_two()
    teardown()
