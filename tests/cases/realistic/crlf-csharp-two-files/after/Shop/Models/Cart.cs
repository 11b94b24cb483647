namespace Shop.Models;

public class Cart
{
    private readonly List<Line> _lines = new();

    public void Add(Line line) => _lines.Add(line);

    public decimal Total() => _lines.Sum(l => l.Price * l.Quantity * (1 - l.Discount));
}
