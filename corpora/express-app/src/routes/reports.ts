import { Router, RequestHandler } from 'express';
import type { ReportService } from '../services/reportService';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCsv, sendOk, setCacheControl } from '../utils/http';
import { parseDateRange } from '../utils/dates';
import { formatMoney } from '../utils/money';

function rangeFrom(query: Record<string, unknown>) {
  return parseDateRange(
    typeof query.from === 'string' ? query.from : undefined,
    typeof query.to === 'string' ? query.to : undefined,
  );
}

/**
 * Reports are built by a factory so the caller decides how they are guarded
 * (the app passes its auth + staff middleware; tests can pass none).
 */
export function createReportsRouter(reports: ReportService, guards: RequestHandler[] = []): Router {
  const router = Router();

  if (guards.length > 0) {
    router.use(...guards);
  }

  router.get(
    '/sales',
    asyncHandler(async (req, res) => {
      const range = rangeFrom(req.query);
      setCacheControl(res, 60, 'private');
      sendOk(res, await reports.salesByDay(range), { from: range.from, to: range.to });
    }),
  );

  router.get(
    '/sales.csv',
    asyncHandler(async (req, res) => {
      const rows = await reports.salesByDay(rangeFrom(req.query));
      sendCsv(res, 'sales.csv', [
        ['date', 'orders', 'units', 'revenue'],
        ...rows.map((row) => [row.date, row.orders, row.units, formatMoney(row.revenueCents)]),
      ]);
    }),
  );

  router.get(
    '/top-sellers',
    asyncHandler(async (req, res) => {
      const limit = Math.min(Number(req.query.limit) || 10, 100);
      sendOk(res, await reports.topSellers(rangeFrom(req.query), limit));
    }),
  );

  router.get(
    '/inventory-valuation',
    asyncHandler(async (_req, res) => {
      sendOk(res, await reports.inventoryValuation());
    }),
  );

  router.get(
    '/order-status',
    asyncHandler(async (req, res) => {
      sendOk(res, await reports.statusBreakdown(rangeFrom(req.query)));
    }),
  );

  return router;
}
