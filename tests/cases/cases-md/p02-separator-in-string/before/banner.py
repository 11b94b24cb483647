line = "======="
width = 7
