export interface Order {
  id: string;
  total: number;
}
