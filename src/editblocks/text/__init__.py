"""Pure text helpers every layer shares: a file's lines and endings, encodings, diffs, changed words."""
