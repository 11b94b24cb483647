package main

func greet() string {
	return "hello"
}
