three = 'III'
