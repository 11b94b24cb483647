pub fn parse(input: &str) -> Option<u32> {
    input.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(parse(" 7 "), Some(7));
    }

    #[test]
    fn rejects_words() {
        assert_eq!(parse("seven"), None);
    }
}
