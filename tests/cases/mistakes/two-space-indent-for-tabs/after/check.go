package limits

func check(x int) error {
	if x < 0 {
		return errNegative
	}
	if x > limit {
		return errTooLarge
	}
	return nil
}
