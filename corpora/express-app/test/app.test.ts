import request from 'supertest';
import type { Express } from 'express';
import { createApp, API_VERSION } from '../src/app';
import { loadConfig } from '../src/config/env';
import { adminHeader, authHeader, staffHeader } from './helpers/mock';
import { createCustomer, resetAll } from './helpers/fixtures';

describe('createApp', () => {
  let app: Express;

  beforeAll(() => {
    app = createApp({ quiet: true, config: loadConfig({ NODE_ENV: 'test', CORS_ORIGINS: 'https://shop.example.com' }) }) as Express;
  });

  beforeEach(() => {
    resetAll();
  });

  it('describes itself at /api', async () => {
    const res = await request(app).get('/api');
    expect(res.body).toEqual({ name: 'bookstore-api', version: API_VERSION, docs: '/docs' });
  });

  it('protects /api/me with authMiddleware', async () => {
    const res = await request(app).get('/api/me');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('returns the current profile from /api/me', async () => {
    const customer = await createCustomer();
    const res = await request(app).get('/api/me').set(authHeader({ id: customer.id, email: customer.email }));
    expect(res.status).toBe(200);
    expect(res.body.data.email).toBe(customer.email);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(app).get('/api/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('maps malformed JSON bodies to 400', async () => {
    const res = await request(app).post('/api/auth/login').set('Content-Type', 'application/json').send('{"email":');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('guards reports with auth + staff middleware', async () => {
    expect((await request(app).get('/api/reports/sales')).status).toBe(401);
    expect((await request(app).get('/api/reports/sales').set(authHeader())).status).toBe(403);
    expect((await request(app).get('/api/reports/sales').set(staffHeader())).status).toBe(200);
  });

  it('restricts /api/admin to administrators', async () => {
    expect((await request(app).get('/api/admin/stats').set(staffHeader())).status).toBe(403);
    expect((await request(app).get('/api/admin/stats').set(adminHeader())).status).toBe(200);
  });

  it('does not advertise the framework via X-Powered-By', async () => {
    const res = await request(app).get('/api');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers.server).toBeDefined();
  });

  it('sets CORS headers for configured origins', async () => {
    const res = await request(app).get('/api').set('Origin', 'https://shop.example.com');
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');
  });
});
