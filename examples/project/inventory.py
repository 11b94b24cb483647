"""A tiny inventory, used by the editblocks demo."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int
    price: float


def total_value(items):
    return sum(item.quantity * item.price for item in items)


def restock(item, amount):
    item.quantity += amount
    return item
