class Hello { }
