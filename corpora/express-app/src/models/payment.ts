import { Entity, InMemoryRepository } from './base';

export enum PaymentStatus {
  Pending = 'pending',
  Authorized = 'authorized',
  Captured = 'captured',
  Failed = 'failed',
  Refunded = 'refunded',
  PartiallyRefunded = 'partially_refunded',
}

export enum PaymentMethod {
  Card = 'card',
  PayPal = 'paypal',
  GiftCard = 'gift_card',
}

export interface Payment extends Entity {
  orderId: string;
  customerId: string;
  amountCents: number;
  refundedCents: number;
  currency: string;
  status: PaymentStatus;
  method: PaymentMethod;
  providerRef?: string;
  failureReason?: string;
}

export function refundableCents(payment: Payment): number {
  if (payment.status !== PaymentStatus.Captured && payment.status !== PaymentStatus.PartiallyRefunded) {
    return 0;
  }
  return payment.amountCents - payment.refundedCents;
}

export class PaymentRepository extends InMemoryRepository<Payment> {
  protected readonly prefix = 'pay';

  async findByOrder(orderId: string): Promise<Payment[]> {
    return this.find((payment) => payment.orderId === orderId);
  }

  async findByProviderRef(providerRef: string): Promise<Payment | undefined> {
    return this.findOne((payment) => payment.providerRef === providerRef);
  }
}
