namespace Shop.Billing;

using System.Globalization;

public sealed class Invoice
{
    public decimal Total { get; init; }
}
