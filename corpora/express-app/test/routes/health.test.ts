import request from 'supertest';
import { healthRouter } from '../../src/routes/health';
import { buildMockApp } from '../helpers/mock';

const app = buildMockApp(healthRouter, { mountPath: '/health' });

describe('health endpoints', () => {
  it('reports status without credentials', async () => {
    const res = await request(app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });

  it('has a plain-text liveness probe', async () => {
    const res = await request(app).get('/health/live');
    expect(res.text).toBe('ok');
  });

  it('reports datastore counts on readiness', async () => {
    const res = await request(app).get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.checks.datastore.ok).toBe(true);
  });
});
