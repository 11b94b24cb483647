GREETING = "Don't panic"
FAREWELL = 'See you - soon'
