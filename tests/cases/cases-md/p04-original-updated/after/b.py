two = 'two'
