TEMPLATE = """
<<<<<<< SEARCH
find
=======
put
>>>>>>> REPLACE
"""
