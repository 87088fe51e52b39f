import { createDatabase, Database } from '../../src/config/database';
import { createServices, Services } from '../../src/services';
import { MemoryMailer } from '../../src/services/notificationService';
import { BookFormat } from '../../src/models/book';
import { OrderStatus } from '../../src/models/order';
import { PaymentMethod, PaymentStatus } from '../../src/models/payment';
import { Role } from '../../src/models/customer';
import { ForbiddenError } from '../../src/utils/errors';
import type { AuthUser } from '../../src/types';
import { createBook, createCustomer, stockBook } from '../helpers/fixtures';

describe('OrderService', () => {
  let database: Database;
  let services: Services;
  let mailer: MemoryMailer;
  const staff: AuthUser = { id: 'cus_staff0000000001', email: 'staff@bookstore.test', role: Role.Staff };

  beforeEach(() => {
    database = createDatabase();
    mailer = new MemoryMailer();
    services = createServices(database, { mailer, taxRegion: 'US' });
  });

  async function orderFor(quantity: number, priceCents = 1200) {
    const customer = await createCustomer(database);
    const book = await createBook(database, { priceCents });
    await stockBook(database, book.id, 10);
    await services.carts.addItem(customer.id, book.id, quantity);
    const order = await services.orders.placeOrder(customer.id, { paymentMethod: PaymentMethod.Card });
    const actor: AuthUser = { id: customer.id, email: customer.email, role: Role.Customer };
    return { customer, book, order, actor };
  }

  it('charges the order, commits stock and mails a confirmation', async () => {
    const { book, order, customer } = await orderFor(2);

    expect(order.status).toBe(OrderStatus.Paid);
    expect(order.history.map((h) => h.to)).toEqual([OrderStatus.Pending, OrderStatus.Paid]);
    expect((await database.inventory.findByBook(book.id))?.onHand).toBe(8);
    expect(mailer.sent).toEqual([expect.objectContaining({ to: customer.email, subject: `Order ${order.number} confirmed` })]);
  });

  it('ships free above the threshold', async () => {
    const { order } = await orderFor(3, 1500);
    expect(order.shippingCents).toBe(0);
  });

  it('does not require an address or shipping for ebooks', async () => {
    const customer = await createCustomer(database, { addresses: [], defaultAddressIndex: undefined });
    const ebook = await createBook(database, { format: BookFormat.Ebook, priceCents: 1500 });
    await services.carts.addItem(customer.id, ebook.id, 1);

    const order = await services.orders.placeOrder(customer.id, { paymentMethod: PaymentMethod.PayPal });

    expect(order.shippingCents).toBe(0);
    expect(order.totalCents).toBe(1500);
  });

  it('refunds and restocks when a paid order is cancelled', async () => {
    const { book, order, actor } = await orderFor(2);

    const cancelled = await services.orders.cancel(order.id, actor, 'changed my mind');

    expect(cancelled.status).toBe(OrderStatus.Cancelled);
    const [payment] = await services.payments.forOrder(order.id);
    expect(payment.status).toBe(PaymentStatus.Refunded);
    expect((await database.inventory.findByBook(book.id))?.onHand).toBe(10);
  });

  it('prevents customers from cancelling shipped orders', async () => {
    const { order, actor } = await orderFor(1);
    await services.orders.ship(order.id, 'TRACK-1234', staff);

    await expect(services.orders.cancel(order.id, actor, 'too late')).rejects.toBeInstanceOf(ForbiddenError);
  });
});
