import request from 'supertest';
import authRouter from '../../src/routes/auth';
import { buildMockApp } from '../helpers/mock';
import { createCustomer, resetAll, TEST_PASSWORD } from '../helpers/fixtures';

const app = buildMockApp(authRouter, { mountPath: '/api/auth' });

beforeEach(() => {
  resetAll();
});

describe('POST /api/auth/register', () => {
  it('creates an account and returns tokens without the password hash', async () => {
    const res = await request(app)
      .post('/api/auth/register')
      .send({ email: 'New.Reader@Example.test', name: 'New Reader', password: 'long-enough-1' });

    expect(res.status).toBe(201);
    expect(res.body.data.customer.email).toBe('new.reader@example.test');
    expect(res.body.data.customer).not.toHaveProperty('passwordHash');
    expect(res.body.data.tokens).toMatchObject({ tokenType: 'Bearer', expiresIn: expect.any(Number) });
  });

  it('rejects weak passwords with 422', async () => {
    const res = await request(app)
      .post('/api/auth/register')
      .send({ email: 'weak@example.test', name: 'Weak', password: 'aaaaaaaaaaaa' });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].path).toBe('password');
  });

  it('rejects duplicate emails with 409', async () => {
    const existing = await createCustomer();
    const res = await request(app)
      .post('/api/auth/register')
      .send({ email: existing.email, name: 'Dup', password: 'long-enough-1' });
    expect(res.status).toBe(409);
  });
});

describe('POST /api/auth/login', () => {
  it('returns tokens for valid credentials', async () => {
    const customer = await createCustomer();
    const res = await request(app).post('/api/auth/login').send({ email: customer.email, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(typeof res.body.data.tokens.accessToken).toBe('string');
  });

  it('returns 401 for a wrong password', async () => {
    const customer = await createCustomer();
    const res = await request(app).post('/api/auth/login').send({ email: customer.email, password: 'nope-nope-1' });
    expect(res.status).toBe(401);
  });

  it('refuses disabled accounts', async () => {
    const customer = await createCustomer(undefined, { disabled: true });
    const res = await request(app).post('/api/auth/login').send({ email: customer.email, password: TEST_PASSWORD });
    expect(res.status).toBe(401);
  });
});

describe('token lifecycle', () => {
  it('uses the access token for /me and the refresh token for /refresh', async () => {
    const customer = await createCustomer();
    const login = await request(app).post('/api/auth/login').send({ email: customer.email, password: TEST_PASSWORD });
    const { accessToken, refreshToken } = login.body.data.tokens;

    const me = await request(app).get('/api/auth/me').set('Authorization', `Bearer ${accessToken}`);
    const refreshed = await request(app).post('/api/auth/refresh').send({ refreshToken });
    const wrongType = await request(app).post('/api/auth/refresh').send({ refreshToken: accessToken });

    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(customer.id);
    expect(refreshed.status).toBe(200);
    expect(wrongType.status).toBe(401);
  });
});
