namespace Shop.Models;

public class Offer
{
    public decimal Price { get; set; }
    public string Currency { get; set; } = "EUR";
}
