import json
import sys


def summary(rows):
    total = round(sum(row["amount"] for row in rows), 2)
    return {"count": len(rows), "total": total}


def header():
    return "Monthly report"


def main(path):
    with open(path) as handle:
        rows = json.load(handle)
    print(header())
    print(summary(rows))


if __name__ == "__main__":
    main(sys.argv[1])
