EXAMPLE = """
<<<<<<< SEARCH
older
=======
new
>>>>>>> REPLACE
"""
