import { Router, Request, Response } from 'express';
import { db } from '../config/database';
import { config } from '../config/env';

// Health checks are deliberately public: no authMiddleware here, because load
// balancers and uptime monitors probe these endpoints without credentials.
export const healthRouter = Router();

const startedAt = new Date();

healthRouter.get('/', (_req: Request, res: Response) => {
  res.json({
    status: 'ok',
    env: config.env,
    startedAt: startedAt.toISOString(),
    uptimeSeconds: Math.round(process.uptime()),
  });
});

healthRouter.get('/live', (_req: Request, res: Response) => {
  res.status(200).send('ok');
});

healthRouter.get('/ready', async (_req: Request, res: Response) => {
  try {
    const [books, customers] = await Promise.all([db.books.count(), db.customers.count()]);
    const memory = process.memoryUsage();
    res.json({
      status: 'ready',
      checks: {
        datastore: { ok: true, books, customers },
        memory: { ok: memory.heapUsed < 1.5 * 1024 ** 3, heapUsedMb: Math.round(memory.heapUsed / 1024 ** 2) },
      },
    });
  } catch (err) {
    res.status(503).json({ status: 'unavailable', error: err instanceof Error ? err.message : String(err) });
  }
});
