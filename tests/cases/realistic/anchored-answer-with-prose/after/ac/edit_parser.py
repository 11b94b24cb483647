class EditParser:
    def parse_response(self, text):
        lines = text.splitlines()
        blocks = []
        return blocks

    def is_binary_file(self, path):
        with open(path, "rb") as handle:
            return b"\0" in handle.read(8192)
