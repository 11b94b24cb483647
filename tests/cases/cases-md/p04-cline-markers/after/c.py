three = 'three'
