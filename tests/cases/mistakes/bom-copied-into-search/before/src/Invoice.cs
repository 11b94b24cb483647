namespace Shop.Billing;

public sealed class Invoice
{
    public decimal Total { get; init; }
}
