import express, { Request, Response } from 'express';
import { authMiddleware, requireAdmin, requireSelfOrStaff, requireStaff, currentUser, validate } from '../middleware';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendOk, sendPaginated } from '../utils/http';
import { parsePagination } from '../utils/pagination';
import { v } from '../utils/validators';
import { Role } from '../models/customer';
import { services } from '../services';

export const customersRouter = express.Router();

const addressSchema = v.object({
  label: v.string().min(1).max(40),
  line1: v.string().min(1).max(200),
  line2: v.string().max(200).optional(),
  city: v.string().min(1).max(100),
  region: v.string().max(10).optional(),
  postalCode: v.string().min(2).max(12),
  country: v.string().min(2).max(2),
});

const profileSchema = v.object({
  name: v.string().min(1).max(120).optional(),
  marketingOptIn: v.boolean().optional(),
});

const roleSchema = v.object({ role: v.enum(Object.values(Role)) });
const disabledSchema = v.object({ disabled: v.boolean() });

customersRouter.use(authMiddleware);

customersRouter.get(
  '/',
  requireStaff,
  asyncHandler(async (req: Request, res: Response) => {
    const role = Object.values(Role).find((r) => r === req.query.role);
    const search = typeof req.query.q === 'string' ? req.query.q : undefined;
    sendPaginated(res, await services.customers.list({ role, search }, parsePagination(req.query)));
  }),
);

customersRouter.get(
  '/:customerId',
  requireSelfOrStaff(),
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.customers.get(req.params.customerId));
  }),
);

customersRouter.patch(
  '/:customerId',
  requireSelfOrStaff(),
  validate(profileSchema),
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.customers.updateProfile(req.params.customerId, req.body));
  }),
);

customersRouter.post(
  '/:customerId/addresses',
  requireSelfOrStaff(),
  validate(addressSchema),
  asyncHandler(async (req: Request, res: Response) => {
    const makeDefault = req.query.default === 'true';
    const customer = await services.customers.addAddress(req.params.customerId, req.body, makeDefault);
    sendCreated(res, customer.addresses, `/api/customers/${req.params.customerId}`);
  }),
);

customersRouter.delete(
  '/:customerId/addresses/:index',
  requireSelfOrStaff(),
  asyncHandler(async (req: Request, res: Response) => {
    const index = Number.parseInt(req.params.index, 10);
    const customer = await services.customers.removeAddress(req.params.customerId, index);
    sendOk(res, customer.addresses);
  }),
);

customersRouter.get(
  '/:customerId/orders',
  requireSelfOrStaff(),
  asyncHandler(async (req: Request, res: Response) => {
    sendPaginated(res, await services.orders.listForCustomer(req.params.customerId, parsePagination(req.query)));
  }),
);

customersRouter.put(
  '/:customerId/role',
  requireAdmin,
  validate(roleSchema),
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.customers.setRole(currentUser(req), req.params.customerId, req.body.role));
  }),
);

customersRouter.put(
  '/:customerId/disabled',
  requireAdmin,
  validate(disabledSchema),
  asyncHandler(async (req: Request, res: Response) => {
    sendOk(res, await services.customers.setDisabled(req.params.customerId, req.body.disabled));
  }),
);

export default customersRouter;
