<<<<<<< HEAD
limit = 10
=======
limit = 20
>>>>>>> topic
name = 'x'
