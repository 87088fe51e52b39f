import { createHmac, timingSafeEqual } from 'crypto';
import { Payment, PaymentMethod, PaymentRepository, PaymentStatus, refundableCents } from '../models/payment';
import type { Order } from '../models/order';
import { BadRequestError, ConflictError, NotFoundError, PaymentFailedError, UnauthorizedError } from '../utils/errors';
import { generateId } from '../utils/ids';
import { logger } from '../utils/logger';

export interface ChargeRequest {
  orderId: string;
  customerId: string;
  amountCents: number;
  currency: string;
  method: PaymentMethod;
  token?: string;
}

export interface GatewayChargeResult {
  approved: boolean;
  providerRef: string;
  declineCode?: string;
}

export interface PaymentGateway {
  readonly name: string;
  charge(request: ChargeRequest): Promise<GatewayChargeResult>;
  refund(providerRef: string, amountCents: number): Promise<{ ok: boolean; reason?: string }>;
  verifyWebhookSignature(payload: Buffer, signature: string): boolean;
}

export type WebhookEvent =
  | { type: 'payment.captured'; providerRef: string }
  | { type: 'payment.failed'; providerRef: string; reason: string }
  | { type: 'refund.completed'; providerRef: string; amountCents: number };

/**
 * Deterministic in-process gateway used in development and tests. Card tokens
 * starting with `tok_decline` are declined, everything else is approved.
 */
export class FakePaymentGateway implements PaymentGateway {
  readonly name = 'fake';

  constructor(private readonly webhookSecret: string) {}

  async charge(request: ChargeRequest): Promise<GatewayChargeResult> {
    const providerRef = generateId('fk');
    if (request.token?.startsWith('tok_decline')) {
      return { approved: false, providerRef, declineCode: 'card_declined' };
    }
    return { approved: true, providerRef };
  }

  async refund(_providerRef: string, amountCents: number): Promise<{ ok: boolean; reason?: string }> {
    return amountCents > 0 ? { ok: true } : { ok: false, reason: 'amount_must_be_positive' };
  }

  sign(payload: Buffer | string): string {
    return createHmac('sha256', this.webhookSecret).update(payload).digest('hex');
  }

  verifyWebhookSignature(payload: Buffer, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const actual = Buffer.from(signature);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}

export class PaymentService {
  private readonly log = logger.child({ component: 'PaymentService' });

  constructor(
    private readonly payments: PaymentRepository,
    private readonly gateway: PaymentGateway,
  ) {}

  async charge(order: Order, method: PaymentMethod, token?: string): Promise<Payment> {
    if (order.totalCents <= 0) {
      throw new BadRequestError('Cannot charge a zero-value order');
    }
    const existing = await this.payments.findByOrder(order.id);
    if (existing.some((p) => p.status === PaymentStatus.Captured)) {
      throw new ConflictError(`Order ${order.number} is already paid`);
    }
    const result = await this.gateway.charge({
      orderId: order.id,
      customerId: order.customerId,
      amountCents: order.totalCents,
      currency: order.currency,
      method,
      token,
    });
    const payment = await this.payments.create({
      orderId: order.id,
      customerId: order.customerId,
      amountCents: order.totalCents,
      refundedCents: 0,
      currency: order.currency,
      method,
      providerRef: result.providerRef,
      status: result.approved ? PaymentStatus.Captured : PaymentStatus.Failed,
      failureReason: result.declineCode,
    });
    if (!result.approved) {
      this.log.warn('payment declined', { orderId: order.id, declineCode: result.declineCode });
      throw new PaymentFailedError('The payment was declined', result.declineCode);
    }
    return payment;
  }

  async refund(paymentId: string, amountCents?: number): Promise<Payment> {
    const payment = await this.get(paymentId);
    const refundable = refundableCents(payment);
    const amount = amountCents ?? refundable;
    if (amount <= 0 || amount > refundable) {
      throw new BadRequestError(`Refund amount must be between 1 and ${refundable} cents`);
    }
    const outcome = await this.gateway.refund(payment.providerRef as string, amount);
    if (!outcome.ok) {
      throw new PaymentFailedError(`Refund failed: ${outcome.reason ?? 'unknown'}`);
    }
    const refundedCents = payment.refundedCents + amount;
    return (await this.payments.update(payment.id, {
      refundedCents,
      status: refundedCents === payment.amountCents ? PaymentStatus.Refunded : PaymentStatus.PartiallyRefunded,
    })) as Payment;
  }

  async get(id: string): Promise<Payment> {
    const payment = await this.payments.findById(id);
    if (!payment) {
      throw new NotFoundError('Payment', id);
    }
    return payment;
  }

  async forOrder(orderId: string): Promise<Payment[]> {
    return this.payments.findByOrder(orderId);
  }

  parseWebhook(rawBody: Buffer, signature: string | undefined): WebhookEvent {
    if (!signature || !this.gateway.verifyWebhookSignature(rawBody, signature)) {
      throw new UnauthorizedError('Invalid webhook signature');
    }
    try {
      const event = JSON.parse(rawBody.toString('utf8')) as WebhookEvent;
      if (!event || typeof event.type !== 'string' || typeof event.providerRef !== 'string') {
        throw new Error('missing fields');
      }
      return event;
    } catch {
      throw new BadRequestError('Webhook payload is not a valid event');
    }
  }

  async applyWebhook(event: WebhookEvent): Promise<Payment | undefined> {
    const payment = await this.payments.findByProviderRef(event.providerRef);
    if (!payment) {
      this.log.warn('webhook for unknown payment', { providerRef: event.providerRef, type: event.type });
      return undefined;
    }
    switch (event.type) {
      case 'payment.captured':
        return this.payments.update(payment.id, { status: PaymentStatus.Captured, failureReason: undefined });
      case 'payment.failed':
        return this.payments.update(payment.id, { status: PaymentStatus.Failed, failureReason: event.reason });
      case 'refund.completed': {
        const refundedCents = Math.min(payment.amountCents, payment.refundedCents + event.amountCents);
        return this.payments.update(payment.id, {
          refundedCents,
          status: refundedCents === payment.amountCents ? PaymentStatus.Refunded : PaymentStatus.PartiallyRefunded,
        });
      }
      default:
        return undefined;
    }
  }
}
