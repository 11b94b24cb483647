def header():  
    title = 'Report'
    return title.upper()
