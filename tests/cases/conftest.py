"""The corpus holds data, not tests: files in before/ and after/ must never be collected or imported by pytest."""

collect_ignore_glob = ["*"]
