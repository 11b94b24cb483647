package main

func main() {
	fmt.Println("hello")
}
