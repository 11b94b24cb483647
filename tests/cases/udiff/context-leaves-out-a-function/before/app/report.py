import json
import sys


def summary(rows):
    total = sum(row["amount"] for row in rows)
    return {"count": len(rows), "total": total}


def header():
    return "Monthly report"


def main(path):
    rows = json.load(open(path))
    print(header())
    print(summary(rows))


if __name__ == "__main__":
    main(sys.argv[1])
