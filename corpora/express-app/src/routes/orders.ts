import { Router, Request, Response } from 'express';
import { requireAuth, requireStaff, currentUser, validate, validated } from '../middleware';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendOk, sendPaginated } from '../utils/http';
import { parsePagination } from '../utils/pagination';
import { parseDateRange } from '../utils/dates';
import { Infer, v } from '../utils/validators';
import { OrderStatus } from '../models/order';
import { PaymentMethod } from '../models/payment';
import { Role } from '../models/customer';
import { services } from '../services';

const router = Router();

const placeOrderSchema = v.object({
  addressIndex: v.number().int().min(0).optional(),
  paymentMethod: v.enum(Object.values(PaymentMethod)),
  paymentToken: v.string().max(200).optional(),
});

const adminListSchema = v.object({
  status: v.enum(Object.values(OrderStatus)).optional(),
  customerId: v.id('cus').optional(),
  from: v.string().optional(),
  to: v.string().optional(),
  page: v.string().optional(),
  pageSize: v.string().optional(),
});

const shipSchema = v.object({ trackingNumber: v.string().min(4).max(64) });
const cancelSchema = v.object({ reason: v.string().min(3).max(500) });
const refundSchema = v.object({ amountCents: v.number().int().positive().optional() });

type AdminListQuery = Infer<typeof adminListSchema>;

// Every order endpoint requires an authenticated user.
router.use(requireAuth);

router.get(
  '/',
  asyncHandler(async (req: Request, res: Response) => {
    const user = currentUser(req);
    sendPaginated(res, await services.orders.listForCustomer(user.id, parsePagination(req.query)));
  }),
);

router.get(
  '/all',
  requireStaff,
  validate(adminListSchema, 'query'),
  asyncHandler(async (req: Request, res: Response) => {
    const query = validated<AdminListQuery>(res, 'query');
    const range = query.from || query.to ? parseDateRange(query.from, query.to) : undefined;
    const result = await services.orders.listAll(
      { status: query.status, customerId: query.customerId, from: range?.from, to: range?.to },
      parsePagination(req.query),
    );
    sendPaginated(res, result);
  }),
);

router.post(
  '/',
  validate(placeOrderSchema),
  asyncHandler(async (req: Request, res: Response) => {
    const user = currentUser(req);
    const order = await services.orders.placeOrder(user.id, req.body);
    sendCreated(res, order, `/api/orders/${order.id}`);
  }),
);

router.get(
  '/:id',
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.orders.get(req.params.id, currentUser(req)));
  }),
);

router.get(
  '/:id/payments',
  asyncHandler(async (req: Request, res: Response) => {
    const order = await services.orders.get(req.params.id, currentUser(req));
    sendOk(res, await services.payments.forOrder(order.id));
  }),
);

router.post(
  '/:id/cancel',
  validate(cancelSchema),
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.orders.cancel(req.params.id, currentUser(req), req.body.reason));
  }),
);

router.post(
  '/:id/ship',
  requireStaff,
  validate(shipSchema),
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.orders.ship(req.params.id, req.body.trackingNumber, currentUser(req)));
  }),
);

router.post(
  '/:id/deliver',
  requireStaff,
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.orders.markDelivered(req.params.id, currentUser(req)));
  }),
);

router.post(
  '/:id/refund',
  requireStaff,
  validate(refundSchema),
  asyncHandler(async (req: Request, res: Response) => {
    const user = currentUser(req);
    if (req.body.amountCents !== undefined && user.role !== Role.Admin) {
      res.status(403).json({ error: { code: 'forbidden', message: 'Partial refunds require an administrator' } });
      return;
    }
    sendOk(res, await services.orders.refund(req.params.id, user, req.body.amountCents));
  }),
);

export default router;
