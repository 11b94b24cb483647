EXAMPLE = """
<<<<<<< SEARCH
old
=======
new
>>>>>>> REPLACE
"""
