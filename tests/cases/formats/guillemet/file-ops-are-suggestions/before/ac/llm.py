from ac.old_parser import parse
