import { Entity, InMemoryRepository } from './base';
import type { Address } from './customer';

export enum OrderStatus {
  Pending = 'pending',
  Paid = 'paid',
  Shipped = 'shipped',
  Delivered = 'delivered',
  Cancelled = 'cancelled',
  Refunded = 'refunded',
}

export interface OrderLine {
  bookId: string;
  title: string;
  quantity: number;
  unitPriceCents: number;
  physical: boolean;
}

export interface OrderStatusChange {
  from: OrderStatus | null;
  to: OrderStatus;
  at: Date;
  by: string;
  note?: string;
}

export interface Order extends Entity {
  number: string;
  customerId: string;
  lines: OrderLine[];
  status: OrderStatus;
  subtotalCents: number;
  taxCents: number;
  shippingCents: number;
  totalCents: number;
  currency: string;
  shippingAddress?: Address;
  paymentId?: string;
  trackingNumber?: string;
  history: OrderStatusChange[];
}

export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  [OrderStatus.Pending]: [OrderStatus.Paid, OrderStatus.Cancelled],
  [OrderStatus.Paid]: [OrderStatus.Shipped, OrderStatus.Cancelled, OrderStatus.Refunded],
  [OrderStatus.Shipped]: [OrderStatus.Delivered, OrderStatus.Refunded],
  [OrderStatus.Delivered]: [OrderStatus.Refunded],
  [OrderStatus.Cancelled]: [],
  [OrderStatus.Refunded]: [],
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

export function isTerminal(status: OrderStatus): boolean {
  return ORDER_TRANSITIONS[status].length === 0;
}

export function lineTotal(line: OrderLine): number {
  return line.quantity * line.unitPriceCents;
}

export class OrderRepository extends InMemoryRepository<Order> {
  protected readonly prefix = 'ord';
  private sequence = 10_000;

  nextOrderNumber(now: Date = new Date()): string {
    this.sequence += 1;
    return `BS-${now.getUTCFullYear()}-${this.sequence}`;
  }

  async findByCustomer(customerId: string): Promise<Order[]> {
    const orders = await this.find((order) => order.customerId === customerId);
    return orders.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  async findByStatus(...statuses: OrderStatus[]): Promise<Order[]> {
    const wanted = new Set(statuses);
    return this.find((order) => wanted.has(order.status));
  }

  async findByNumber(number: string): Promise<Order | undefined> {
    return this.findOne((order) => order.number === number);
  }

  async findCreatedBetween(from: Date, to: Date): Promise<Order[]> {
    return this.find((order) => order.createdAt >= from && order.createdAt <= to);
  }
}
