TEMPLATE = """
<<<<<<< SEARCH
look for
=======
put
>>>>>>> REPLACE
"""
