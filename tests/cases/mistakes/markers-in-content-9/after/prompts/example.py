EXAMPLE = """
<<<<<<< SEARCH
old code
=======
new code
>>>>>>> REPLACE
"""
