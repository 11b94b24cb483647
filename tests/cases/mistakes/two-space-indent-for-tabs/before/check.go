package limits

func check(x int) error {
	if x < 0 {
		return errNegative
	}
	return nil
}
