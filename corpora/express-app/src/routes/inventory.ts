import { Router } from 'express';
import { authMiddleware, requireStaff, validate } from '../middleware';
import { asyncHandler } from '../utils/asyncHandler';
import { sendOk } from '../utils/http';
import { v } from '../utils/validators';
import { services } from '../services';

const router = Router();

const restockSchema = v.object({
  quantity: v.number().int().positive().max(10_000),
  unitCostCents: v.number().int().min(0).optional(),
});

const adjustSchema = v.object({
  onHand: v.number().int().min(0),
  note: v.string().min(3).max(200),
});

const thresholdSchema = v.object({ reorderThreshold: v.number().int().min(0).max(1_000) });

router.use(authMiddleware, requireStaff);

router.get(
  '/low-stock',
  asyncHandler(async (_req, res) => {
    sendOk(res, await services.inventory.lowStock());
  }),
);

router.get(
  '/:bookId',
  asyncHandler(async (req, res) => {
    const level = await services.inventory.levelFor(req.params.bookId);
    const available = await services.inventory.availability(req.params.bookId);
    sendOk(res, { ...level, available });
  }),
);

router.get(
  '/:bookId/history',
  asyncHandler(async (req, res) => {
    const limit = Math.min(Number(req.query.limit) || 50, 500);
    sendOk(res, await services.inventory.history(req.params.bookId, limit));
  }),
);

router.post(
  '/:bookId/restock',
  validate(restockSchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.inventory.restock(req.params.bookId, req.body.quantity, req.body.unitCostCents));
  }),
);

router.post(
  '/:bookId/adjust',
  validate(adjustSchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.inventory.adjust(req.params.bookId, req.body.onHand, req.body.note));
  }),
);

router.put(
  '/:bookId/threshold',
  validate(thresholdSchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.inventory.setThreshold(req.params.bookId, req.body.reorderThreshold));
  }),
);

export default router;
