import express from 'express';
import { authMiddleware as ensureAuthenticated, currentUser } from '../middleware/auth';
import { validate } from '../middleware/validation';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendNoContent, sendOk } from '../utils/http';
import { v } from '../utils/validators';
import { MAX_QUANTITY_PER_LINE } from '../models/cart';
import { services } from '../services';

const router = express.Router();

const addItemSchema = v.object({
  bookId: v.id('bk'),
  quantity: v.number().int().min(1).max(MAX_QUANTITY_PER_LINE).default(1),
});

const setQuantitySchema = v.object({
  quantity: v.number().int().min(0).max(MAX_QUANTITY_PER_LINE),
});

const couponSchema = v.object({ code: v.string().min(3).max(32) });

router.use(ensureAuthenticated);

router.get(
  '/',
  asyncHandler(async (req, res) => {
    res.setHeader('Cache-Control', 'private, no-cache');
    sendOk(res, await services.carts.view(currentUser(req).id));
  }),
);

router.post(
  '/items',
  validate(addItemSchema),
  asyncHandler(async (req, res) => {
    const cart = await services.carts.addItem(currentUser(req).id, req.body.bookId, req.body.quantity);
    sendCreated(res, cart, '/api/cart');
  }),
);

router.put(
  '/items/:bookId',
  validate(setQuantitySchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.carts.setQuantity(currentUser(req).id, req.params.bookId, req.body.quantity));
  }),
);

router.delete(
  '/items/:bookId',
  asyncHandler(async (req, res) => {
    sendOk(res, await services.carts.removeItem(currentUser(req).id, req.params.bookId));
  }),
);

router.post(
  '/coupon',
  validate(couponSchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.carts.applyCoupon(currentUser(req).id, req.body.code));
  }),
);

router.delete(
  '/',
  asyncHandler(async (req, res) => {
    await services.carts.clear(currentUser(req).id);
    sendNoContent(res);
  }),
);

export default router;
