import { canTransition, isTerminal, Order, OrderRepository, OrderStatus } from '../models/order';
import { CustomerRepository, Role, taxRegionOf } from '../models/customer';
import { PaymentMethod } from '../models/payment';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../utils/errors';
import { shippingFor, taxFor } from '../utils/money';
import { paginate, Page, PaginatedResult } from '../utils/pagination';
import { logger } from '../utils/logger';
import type { AuthUser } from '../types';
import { CartService } from './cartService';
import { InventoryService } from './inventoryService';
import { PaymentService } from './paymentService';
import { NotificationService } from './notificationService';

export interface PlaceOrderInput {
  addressIndex?: number;
  paymentMethod: PaymentMethod;
  paymentToken?: string;
}

export interface OrderFilter {
  status?: OrderStatus;
  customerId?: string;
  from?: Date;
  to?: Date;
}

function isStaff(user: AuthUser): boolean {
  return user.role === Role.Staff || user.role === Role.Admin;
}

export class OrderService {
  private readonly log = logger.child({ component: 'OrderService' });

  constructor(
    private readonly orders: OrderRepository,
    private readonly customers: CustomerRepository,
    private readonly carts: CartService,
    private readonly inventory: InventoryService,
    private readonly payments: PaymentService,
    private readonly notifications: NotificationService,
    private readonly defaultTaxRegion: string,
  ) {}

  async placeOrder(customerId: string, input: PlaceOrderInput): Promise<Order> {
    const customer = await this.customers.findById(customerId);
    if (!customer) {
      throw new NotFoundError('Customer', customerId);
    }
    const cart = await this.carts.view(customerId);
    if (cart.lines.length === 0) {
      throw new BadRequestError('Your cart is empty');
    }
    const outOfStock = cart.lines.filter((line) => !line.inStock);
    if (outOfStock.length > 0) {
      throw new ConflictError(`Some items are out of stock: ${outOfStock.map((l) => l.title).join(', ')}`);
    }

    const addressIndex = input.addressIndex ?? customer.defaultAddressIndex;
    const address = addressIndex !== undefined ? customer.addresses[addressIndex] : undefined;
    const lines = await Promise.all(
      cart.lines.map(async (line) => ({
        bookId: line.bookId,
        title: line.title,
        quantity: line.quantity,
        unitPriceCents: line.unitPriceCents,
        physical: Number.isFinite(await this.inventory.availability(line.bookId)),
      })),
    );
    const hasPhysical = lines.some((line) => line.physical);
    if (hasPhysical && !address) {
      throw new BadRequestError('A shipping address is required for physical items');
    }

    const discount = this.carts.couponDiscount(cart);
    const subtotalCents = cart.subtotalCents - discount;
    const taxCents = taxFor(subtotalCents, address ? taxRegionOf(address) : this.defaultTaxRegion);
    const shippingCents = shippingFor(subtotalCents, hasPhysical);
    const now = new Date();

    let order = await this.orders.create({
      number: this.orders.nextOrderNumber(now),
      customerId,
      lines,
      status: OrderStatus.Pending,
      subtotalCents,
      taxCents,
      shippingCents,
      totalCents: subtotalCents + taxCents + shippingCents,
      currency: cart.currency,
      shippingAddress: address,
      history: [{ from: null, to: OrderStatus.Pending, at: now, by: customerId }],
    });

    const stockLines = lines.map(({ bookId, quantity }) => ({ bookId, quantity }));
    await this.inventory.reserve(stockLines, order.id);
    try {
      const payment = await this.payments.charge(order, input.paymentMethod, input.paymentToken);
      order = await this.applyTransition(order, OrderStatus.Paid, customerId, undefined, { paymentId: payment.id });
    } catch (err) {
      await this.inventory.release(stockLines, order.id);
      await this.applyTransition(order, OrderStatus.Cancelled, 'system', 'payment failed');
      throw err;
    }

    const low = await this.inventory.commit(stockLines, order.id);
    await this.carts.clear(customerId);
    await this.notifications.orderPlaced(order);
    if (low.length > 0) {
      await this.notifications.lowStock(await this.inventory.lowStock());
    }
    this.log.info('order placed', { orderId: order.id, number: order.number, totalCents: order.totalCents });
    return order;
  }

  async get(id: string, viewer: AuthUser): Promise<Order> {
    const order = await this.orders.findById(id);
    if (!order || (order.customerId !== viewer.id && !isStaff(viewer))) {
      // Do not leak the existence of other customers' orders.
      throw new NotFoundError('Order', id);
    }
    return order;
  }

  async listForCustomer(customerId: string, page: Page): Promise<PaginatedResult<Order>> {
    return paginate(await this.orders.findByCustomer(customerId), page);
  }

  async listAll(filter: OrderFilter, page: Page): Promise<PaginatedResult<Order>> {
    const orders = await this.orders.find(
      (order) =>
        (!filter.status || order.status === filter.status) &&
        (!filter.customerId || order.customerId === filter.customerId) &&
        (!filter.from || order.createdAt >= filter.from) &&
        (!filter.to || order.createdAt <= filter.to),
    );
    orders.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return paginate(orders, page);
  }

  async ship(id: string, trackingNumber: string, actor: AuthUser): Promise<Order> {
    this.assertStaff(actor);
    const order = await this.get(id, actor);
    const shipped = await this.applyTransition(order, OrderStatus.Shipped, actor.id, undefined, { trackingNumber });
    await this.notifications.orderShipped(shipped);
    return shipped;
  }

  async markDelivered(id: string, actor: AuthUser): Promise<Order> {
    this.assertStaff(actor);
    return this.applyTransition(await this.get(id, actor), OrderStatus.Delivered, actor.id);
  }

  async cancel(id: string, actor: AuthUser, reason: string): Promise<Order> {
    const order = await this.get(id, actor);
    if (!isStaff(actor) && order.status !== OrderStatus.Pending && order.status !== OrderStatus.Paid) {
      throw new ForbiddenError('Shipped orders can only be cancelled by staff');
    }
    if (order.paymentId && order.status === OrderStatus.Paid) {
      await this.payments.refund(order.paymentId);
    }
    const stockLines = order.lines.filter((l) => l.physical).map(({ bookId, quantity }) => ({ bookId, quantity }));
    if (stockLines.length > 0 && order.status === OrderStatus.Paid) {
      for (const line of stockLines) {
        await this.inventory.restock(line.bookId, line.quantity);
      }
    }
    const cancelled = await this.applyTransition(order, OrderStatus.Cancelled, actor.id, reason);
    await this.notifications.orderCancelled(cancelled, reason);
    return cancelled;
  }

  async refund(id: string, actor: AuthUser, amountCents?: number): Promise<Order> {
    this.assertStaff(actor);
    const order = await this.get(id, actor);
    if (!order.paymentId) {
      throw new ConflictError(`Order ${order.number} has no payment to refund`);
    }
    await this.payments.refund(order.paymentId, amountCents);
    if (amountCents !== undefined && amountCents < order.totalCents) {
      return order;
    }
    return this.applyTransition(order, OrderStatus.Refunded, actor.id, 'full refund');
  }

  private assertStaff(actor: AuthUser): void {
    if (!isStaff(actor)) {
      throw new ForbiddenError();
    }
  }

  private async applyTransition(
    order: Order,
    to: OrderStatus,
    by: string,
    note?: string,
    extra: Partial<Pick<Order, 'paymentId' | 'trackingNumber'>> = {},
  ): Promise<Order> {
    if (isTerminal(order.status) || !canTransition(order.status, to)) {
      throw new ConflictError(`Order ${order.number} cannot move from ${order.status} to ${to}`);
    }
    const history = [...order.history, { from: order.status, to, at: new Date(), by, note }];
    const updated = await this.orders.update(order.id, { ...extra, status: to, history });
    if (!updated) {
      throw new NotFoundError('Order', order.id);
    }
    return updated;
  }
}
