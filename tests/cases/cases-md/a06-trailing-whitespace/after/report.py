def header():  
    title = 'Report'
    return title.title()
