import os

def calculate(a, b):
    return a + b

def other_function():
    return 1

def existing():
    pass

def another():
    return 2

def main():
    deprecated_call()
    important_call()
    return final_value
