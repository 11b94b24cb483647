GREETING = "Don't panic, it's fine"
FAREWELL = 'See you - soon'
