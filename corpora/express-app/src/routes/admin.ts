import { Router } from 'express';
import { authMiddleware, requireAdmin } from '../middleware/index';
import { asyncHandler } from '../utils/asyncHandler';
import { sendOk } from '../utils/http';
import { db, seedDatabase } from '../config/database';
import { config } from '../config/env';
import { services } from '../services';
import { OrderStatus } from '../models/order';

const router = Router();

router.use(authMiddleware, requireAdmin);

router.get(
  '/stats',
  asyncHandler(async (_req, res) => {
    const [books, authors, customers, orders, pendingOrders, lowStock] = await Promise.all([
      db.books.count(),
      db.authors.count(),
      db.customers.count(),
      db.orders.count(),
      db.orders.count({ status: OrderStatus.Pending }),
      services.inventory.lowStock(),
    ]);
    sendOk(res, { books, authors, customers, orders, pendingOrders, lowStockTitles: lowStock.length });
  }),
);

router.post('/cache/flush', (_req, res) => {
  services.reports.invalidate();
  sendOk(res, { flushed: true });
});

router.post(
  '/notifications/low-stock',
  asyncHandler(async (_req, res) => {
    const entries = await services.inventory.lowStock();
    await services.notifications.lowStock(entries);
    sendOk(res, { notified: entries.length });
  }),
);

router.post(
  '/seed',
  asyncHandler(async (_req, res) => {
    if (config.env === 'production') {
      res.status(404).end();
      return;
    }
    await seedDatabase(db);
    sendOk(res, { seeded: true });
  }),
);

export default router;
