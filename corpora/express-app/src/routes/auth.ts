import { Router } from 'express';
import * as auth from '../middleware/auth';
import { createRateLimiter } from '../middleware/rateLimiter';
import { validate } from '../middleware/validation';
import { config } from '../config/env';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendNoContent, sendOk } from '../utils/http';
import { v } from '../utils/validators';
import { services } from '../services';

const router = Router();

const loginLimiter = createRateLimiter({
  windowMs: config.authRateLimit.windowMs,
  max: config.authRateLimit.max,
  keyGenerator: (req) => `login:${req.ip}:${String(req.body?.email ?? '').toLowerCase()}`,
});

const registerSchema = v.object({
  email: v.string().email().max(254),
  name: v.string().min(1).max(120),
  password: v.string().raw().min(10).max(200),
  marketingOptIn: v.boolean().optional(),
});

const loginSchema = v.object({
  email: v.string().email(),
  password: v.string().raw().min(1).max(200),
});

const refreshSchema = v.object({ refreshToken: v.string().min(20) });

const changePasswordSchema = v.object({
  currentPassword: v.string().raw().min(1),
  newPassword: v.string().raw().min(10).max(200),
});

router.post(
  '/register',
  loginLimiter,
  validate(registerSchema),
  asyncHandler(async (req, res) => {
    const result = await services.auth.register(req.body);
    sendCreated(res, result, `/api/customers/${result.customer.id}`);
  }),
);

router.post(
  '/login',
  loginLimiter,
  validate(loginSchema),
  asyncHandler(async (req, res) => {
    const result = await services.auth.login(req.body.email, req.body.password);
    res.setHeader('Cache-Control', 'no-store');
    sendOk(res, result);
  }),
);

router.post(
  '/refresh',
  validate(refreshSchema),
  asyncHandler(async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendOk(res, await services.auth.refresh(req.body.refreshToken));
  }),
);

router.get(
  '/me',
  auth.authMiddleware,
  asyncHandler(async (req, res) => {
    sendOk(res, await services.customers.get(auth.currentUser(req).id));
  }),
);

router.post(
  '/password',
  auth.authMiddleware,
  validate(changePasswordSchema),
  asyncHandler(async (req, res) => {
    await services.auth.changePassword(auth.currentUser(req).id, req.body.currentPassword, req.body.newPassword);
    sendNoContent(res);
  }),
);

router.post('/logout', auth.optionalAuth, (_req, res) => {
  // Tokens are stateless; clients discard them. Kept for API symmetry.
  sendNoContent(res);
});

export default router;
