import { Order } from './types';

export function describe(order: Readonly<Order>): string {
  return `${order.id}: ${order.total}`;
}
