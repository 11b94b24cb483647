import { Order } from './types';

export function describe(order: Order): string {
  return `${order.id}: ${order.total}`;
}
