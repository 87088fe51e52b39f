import request from 'supertest';
import ordersRouter from '../../src/routes/orders';
import { db } from '../../src/config/database';
import { services } from '../../src/services';
import { OrderStatus } from '../../src/models/order';
import { authHeader, buildMockApp, staffHeader } from '../helpers/mock';
import { createBook, createCustomer, resetAll, stockBook } from '../helpers/fixtures';

const app = buildMockApp(ordersRouter, { mountPath: '/api/orders' });

async function customerWithCart(quantity = 2) {
  const customer = await createCustomer();
  const book = await createBook(undefined, { priceCents: 1200 });
  await stockBook(db, book.id, 10);
  await services.carts.addItem(customer.id, book.id, quantity);
  const headers = authHeader({ id: customer.id, email: customer.email });
  return { customer, book, headers };
}

beforeEach(() => {
  resetAll();
});

describe('/api/orders', () => {
  it('requires authentication for every endpoint', async () => {
    const res = await request(app).get('/api/orders');
    expect(res.status).toBe(401);
  });

  it('places an order from the cart, charges it and clears the cart', async () => {
    const { customer, headers } = await customerWithCart(2);

    const res = await request(app).post('/api/orders').set(headers).send({ paymentMethod: 'card', paymentToken: 'tok_visa' });

    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: OrderStatus.Paid,
      subtotalCents: 2400,
      taxCents: 174,
      shippingCents: 499,
      totalCents: 3073,
    });
    const cart = await services.carts.view(customer.id);
    expect(cart.lines).toHaveLength(0);
  });

  it('returns 400 when the cart is empty', async () => {
    const customer = await createCustomer();
    const res = await request(app)
      .post('/api/orders')
      .set(authHeader({ id: customer.id }))
      .send({ paymentMethod: 'card' });
    expect(res.status).toBe(400);
  });

  it('returns 402 and releases stock when the payment is declined', async () => {
    const { book, headers } = await customerWithCart(3);

    const res = await request(app).post('/api/orders').set(headers).send({ paymentMethod: 'card', paymentToken: 'tok_decline_x' });

    expect(res.status).toBe(402);
    const level = await db.inventory.findByBook(book.id);
    expect(level?.reserved).toBe(0);
  });

  it("does not reveal another customer's order", async () => {
    const { headers } = await customerWithCart();
    const placed = await request(app).post('/api/orders').set(headers).send({ paymentMethod: 'card' });
    const stranger = await createCustomer();

    const res = await request(app).get(`/api/orders/${placed.body.data.id}`).set(authHeader({ id: stranger.id }));

    expect(res.status).toBe(404);
  });

  it('lets staff ship a paid order but not customers', async () => {
    const { headers } = await customerWithCart();
    const placed = await request(app).post('/api/orders').set(headers).send({ paymentMethod: 'card' });
    const id = placed.body.data.id;

    const asCustomer = await request(app).post(`/api/orders/${id}/ship`).set(headers).send({ trackingNumber: '1Z999AA1' });
    const asStaff = await request(app).post(`/api/orders/${id}/ship`).set(staffHeader()).send({ trackingNumber: '1Z999AA1' });

    expect(asCustomer.status).toBe(403);
    expect(asStaff.status).toBe(200);
    expect(asStaff.body.data.status).toBe(OrderStatus.Shipped);
    expect(asStaff.body.data.trackingNumber).toBe('1Z999AA1');
  });

  it('validates the payment method', async () => {
    const { headers } = await customerWithCart();
    const res = await request(app).post('/api/orders').set(headers).send({ paymentMethod: 'bitcoin' });
    expect(res.status).toBe(422);
  });
});
