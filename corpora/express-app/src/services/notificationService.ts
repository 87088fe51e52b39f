import { EventEmitter } from 'events';
import type { Order } from '../models/order';
import type { Review } from '../models/review';
import type { LowStockEntry } from './inventoryService';
import { CustomerRepository } from '../models/customer';
import { formatMoney, isCurrency } from '../utils/money';
import { logger } from '../utils/logger';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  tags?: string[];
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Development mailer: writes messages to the log instead of sending them. */
export class LogMailer implements Mailer {
  private readonly log = logger.child({ component: 'LogMailer' });

  async send(message: MailMessage): Promise<void> {
    this.log.info('mail', { to: message.to, subject: message.subject, tags: message.tags });
  }
}

/** Test mailer: keeps messages in memory for assertions. */
export class MemoryMailer implements Mailer {
  readonly sent: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }
}

export interface NotificationEvents {
  'order.placed': [order: Order];
  'order.shipped': [order: Order];
  'order.cancelled': [order: Order, reason: string];
  'review.submitted': [review: Review];
  'stock.low': [entries: LowStockEntry[]];
}

export class NotificationService extends EventEmitter {
  private readonly log = logger.child({ component: 'NotificationService' });

  constructor(
    private readonly mailer: Mailer,
    private readonly customers: CustomerRepository,
    private readonly staffInbox = 'ops@bookstore.test',
  ) {
    super();
  }

  publish<K extends keyof NotificationEvents>(event: K, ...args: NotificationEvents[K]): void {
    this.emit(event, ...args);
  }

  async orderPlaced(order: Order): Promise<void> {
    this.publish('order.placed', order);
    await this.mailCustomer(order.customerId, {
      subject: `Order ${order.number} confirmed`,
      text: [
        `Thanks for your order! Total: ${this.money(order.totalCents, order.currency)}.`,
        ...order.lines.map((line) => `  ${line.quantity} x ${line.title}`),
      ].join('\n'),
      tags: ['order', 'confirmation'],
    });
  }

  async orderShipped(order: Order): Promise<void> {
    this.publish('order.shipped', order);
    await this.mailCustomer(order.customerId, {
      subject: `Order ${order.number} is on its way`,
      text: order.trackingNumber ? `Tracking number: ${order.trackingNumber}` : 'Your order has shipped.',
      tags: ['order', 'shipping'],
    });
  }

  async orderCancelled(order: Order, reason: string): Promise<void> {
    this.publish('order.cancelled', order, reason);
    await this.mailCustomer(order.customerId, {
      subject: `Order ${order.number} was cancelled`,
      text: `Reason: ${reason}`,
      tags: ['order', 'cancellation'],
    });
  }

  async reviewSubmitted(review: Review): Promise<void> {
    this.publish('review.submitted', review);
  }

  async lowStock(entries: LowStockEntry[]): Promise<void> {
    if (entries.length === 0) return;
    this.publish('stock.low', entries);
    await this.safeSend({
      to: this.staffInbox,
      subject: `${entries.length} title(s) need reordering`,
      text: entries.map((e) => `${e.title}: ${e.available} left (threshold ${e.reorderThreshold})`).join('\n'),
      tags: ['inventory'],
    });
  }

  private async mailCustomer(customerId: string, message: Omit<MailMessage, 'to'>): Promise<void> {
    const customer = await this.customers.findById(customerId);
    if (!customer) {
      this.log.warn('cannot notify unknown customer', { customerId });
      return;
    }
    await this.safeSend({ ...message, to: customer.email });
  }

  private async safeSend(message: MailMessage): Promise<void> {
    try {
      await this.mailer.send(message);
    } catch (err) {
      // Notifications are best-effort; never fail the request because mail is down.
      this.log.error('failed to send mail', { subject: message.subject, err });
    }
  }

  private money(cents: number, currency: string): string {
    return isCurrency(currency) ? formatMoney(cents, currency) : `${(cents / 100).toFixed(2)} ${currency}`;
  }
}
