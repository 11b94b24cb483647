one = 'I'
