class EditParser:
    def parse_response(self, text):
        blocks = []
        return blocks

    def is_binary_file(self, path):
        return False
