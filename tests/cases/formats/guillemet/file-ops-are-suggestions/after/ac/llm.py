from ac.edit_parser import parse
