import request from 'supertest';
import type { RequestHandler } from 'express';
import cartRouter from '../../src/routes/cart';
import { requireAuth } from '../../src/middleware';
import { db } from '../../src/config/database';
import { BookFormat } from '../../src/models/book';
import { authHeader, buildMockApp } from '../helpers/mock';
import { createBook, createCustomer, resetAll, stockBook } from '../helpers/fixtures';

const app = buildMockApp(cartRouter, { mountPath: '/api/cart' });

beforeEach(() => {
  resetAll();
});

async function signedInCustomer() {
  const customer = await createCustomer();
  return { customer, headers: authHeader({ id: customer.id, email: customer.email }) };
}

describe('test token fixture', () => {
  it('is accepted by requireAuth (the alias used by the orders router)', async () => {
    const whoami: RequestHandler = (_req, res) => {
      res.json(res.locals.user);
    };
    const probe = buildMockApp(whoami, { middleware: [requireAuth] });

    const res = await request(probe).get('/').set(authHeader({ id: 'cus_probe0000000001' }));

    expect(res.status).toBe(200);
    expect(res.body.id).toBe('cus_probe0000000001');
  });
});

describe('/api/cart', () => {
  it('rejects anonymous callers', async () => {
    expect((await request(app).get('/api/cart')).status).toBe(401);
  });

  it('returns an empty cart for a new customer', async () => {
    const { headers } = await signedInCustomer();
    const res = await request(app).get('/api/cart').set(headers);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ lines: [], itemCount: 0, subtotalCents: 0 });
  });

  it('adds items and computes the subtotal', async () => {
    const { headers } = await signedInCustomer();
    const book = await createBook(undefined, { priceCents: 999 });
    await stockBook(db, book.id, 5);

    const res = await request(app).post('/api/cart/items').set(headers).send({ bookId: book.id, quantity: 2 });

    expect(res.status).toBe(201);
    expect(res.body.data.subtotalCents).toBe(1998);
    expect(res.body.data.lines[0]).toMatchObject({ bookId: book.id, quantity: 2, inStock: true });
  });

  it('refuses more copies than are in stock', async () => {
    const { headers } = await signedInCustomer();
    const book = await createBook();
    await stockBook(db, book.id, 1);

    const res = await request(app).post('/api/cart/items').set(headers).send({ bookId: book.id, quantity: 3 });

    expect(res.status).toBe(409);
  });

  it('does not limit digital formats by stock', async () => {
    const { headers } = await signedInCustomer();
    const ebook = await createBook(undefined, { format: BookFormat.Ebook });
    const res = await request(app).post('/api/cart/items').set(headers).send({ bookId: ebook.id, quantity: 15 });
    expect(res.status).toBe(201);
  });

  it('removes a line when its quantity is set to zero', async () => {
    const { customer, headers } = await signedInCustomer();
    const book = await createBook(undefined, { format: BookFormat.Ebook });
    await request(app).post('/api/cart/items').set(headers).send({ bookId: book.id });

    const res = await request(app).put(`/api/cart/items/${book.id}`).set(headers).send({ quantity: 0 });

    expect(res.status).toBe(200);
    expect(res.body.data.lines).toHaveLength(0);
    expect(res.body.data.customerId).toBe(customer.id);
  });

  it('rejects unknown coupons', async () => {
    const { headers } = await signedInCustomer();
    const res = await request(app).post('/api/cart/coupon').set(headers).send({ code: 'FREEBOOKS' });
    expect(res.status).toBe(400);
  });
});
