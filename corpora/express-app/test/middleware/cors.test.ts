import request from 'supertest';
import type { RequestHandler } from 'express';
import corsMiddleware from '../../src/middleware/cors';
import { buildMockApp } from '../helpers/mock';

const ok: RequestHandler = (_req, res) => {
  res.json({ ok: true });
};

describe('corsMiddleware', () => {
  const app = buildMockApp(ok, {
    middleware: [corsMiddleware({ origins: ['https://shop.example.com', '*.example.org'], credentials: true })],
  });

  it('echoes an allowed origin and exposes pagination headers', async () => {
    const res = await request(app).get('/').set('Origin', 'https://shop.example.com');
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    expect(res.headers['access-control-expose-headers']).toContain('X-Total-Count');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it('supports wildcard subdomains', async () => {
    const res = await request(app).get('/').set('Origin', 'https://blog.example.org');
    expect(res.headers['access-control-allow-origin']).toBe('https://blog.example.org');
  });

  it('answers preflight requests with 204', async () => {
    const res = await request(app)
      .options('/')
      .set('Origin', 'https://shop.example.com')
      .set('Access-Control-Request-Method', 'POST');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
  });

  it('refuses preflight from unknown origins', async () => {
    const res = await request(app).options('/').set('Origin', 'https://evil.test');
    expect(res.status).toBe(403);
  });

  it('rejects credentials combined with a wildcard origin at construction time', () => {
    expect(() => corsMiddleware({ origins: '*', credentials: true })).toThrow(/wildcard/);
  });
});
