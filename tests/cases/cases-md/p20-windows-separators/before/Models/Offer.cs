namespace Shop.Models;

public class Offer
{
    public decimal Price { get; set; }
}
