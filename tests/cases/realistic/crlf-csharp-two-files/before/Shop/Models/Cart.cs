namespace Shop.Models;

public class Cart
{
    private readonly List<Line> _lines = new();

    public decimal Total() => _lines.Sum(l => l.Price * l.Quantity);
}
