export interface Order {
  id: string;
  total: number;
  currency: 'EUR' | 'USD';
}
