namespace Shop.Models;

public record Line(string Sku, decimal Price, int Quantity, decimal Discount = 0m);
