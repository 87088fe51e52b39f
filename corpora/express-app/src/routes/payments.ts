import express, { Request, Response } from 'express';
import { authMiddleware, currentUser } from '../middleware/auth';
import { rawJsonBody } from '../config/server';
import { asyncHandler } from '../utils/asyncHandler';
import { sendAccepted, sendOk } from '../utils/http';
import { NotFoundError } from '../utils/errors';
import { logger } from '../utils/logger';
import { Role } from '../models/customer';
import { services } from '../services';

const router = express.Router();
const log = logger.child({ component: 'payments-webhook' });

const SIGNATURE_HEADER = 'x-payment-signature';

/**
 * Provider webhook. Authenticated by HMAC signature rather than a bearer
 * token, and it needs the raw body, so it is registered before the JSON parser.
 */
router.post(
  '/webhook',
  rawJsonBody,
  asyncHandler(async (req: Request, res: Response) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.from(JSON.stringify(req.body ?? {}));
    const event = services.payments.parseWebhook(raw, req.header(SIGNATURE_HEADER));
    const payment = await services.payments.applyWebhook(event);
    log.info('webhook processed', { type: event.type, providerRef: event.providerRef, matched: Boolean(payment) });
    sendAccepted(res, { received: true });
  }),
);

router.get(
  '/:paymentId',
  authMiddleware,
  asyncHandler(async (req: Request, res: Response) => {
    const user = currentUser(req);
    const payment = await services.payments.get(req.params.paymentId);
    if (payment.customerId !== user.id && user.role === Role.Customer) {
      throw new NotFoundError('Payment', req.params.paymentId);
    }
    sendOk(res, payment);
  }),
);

export default router;
