"""editblocks: turn a language model's edit blocks into safe, verified edits of real files."""
