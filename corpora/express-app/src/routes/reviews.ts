import { Router } from 'express';
import { authMiddleware, optionalAuth, requireStaff, currentUser } from '../middleware/auth';
import { validate } from '../middleware/validation';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendNoContent, sendOk, sendPaginated, setCacheControl } from '../utils/http';
import { parsePagination } from '../utils/pagination';
import { v } from '../utils/validators';
import { services } from '../services';

/**
 * Mounted twice: under /api/books/:bookId/reviews (mergeParams) for the
 * per-book endpoints and under /api/reviews for moderation.
 */
const router = Router({ mergeParams: true });

const reviewSchema = v.object({
  rating: v.number().int().min(1).max(5),
  title: v.string().min(3).max(120),
  body: v.string().min(20).max(5_000),
});

const moderationSchema = v.object({
  decision: v.enum(['publish', 'reject'] as const),
  reason: v.string().max(500).optional(),
});

router.get(
  '/',
  optionalAuth,
  asyncHandler(async (req, res) => {
    const { bookId } = req.params as { bookId?: string };
    if (!bookId) {
      res.status(400).json({ error: { code: 'bad_request', message: 'Use /api/books/:bookId/reviews' } });
      return;
    }
    setCacheControl(res, 60);
    sendPaginated(res, await services.reviews.listForBook(bookId, parsePagination(req.query)));
  }),
);

router.get(
  '/summary',
  asyncHandler(async (req, res) => {
    const { bookId } = req.params as { bookId: string };
    setCacheControl(res, 300);
    sendOk(res, await services.reviews.summary(bookId));
  }),
);

router.post(
  '/',
  authMiddleware,
  validate(reviewSchema),
  asyncHandler(async (req, res) => {
    const { bookId } = req.params as { bookId: string };
    const review = await services.reviews.submit(currentUser(req), bookId, req.body);
    sendCreated(res, review);
  }),
);

router.get(
  '/moderation',
  authMiddleware,
  requireStaff,
  asyncHandler(async (req, res) => {
    sendPaginated(res, await services.reviews.moderationQueue(parsePagination(req.query)));
  }),
);

router.post(
  '/:reviewId/moderate',
  authMiddleware,
  requireStaff,
  validate(moderationSchema),
  asyncHandler(async (req, res) => {
    const review = await services.reviews.moderate(currentUser(req), req.params.reviewId, req.body.decision, req.body.reason);
    sendOk(res, review);
  }),
);

router.delete(
  '/:reviewId',
  authMiddleware,
  asyncHandler(async (req, res) => {
    await services.reviews.remove(currentUser(req), req.params.reviewId);
    sendNoContent(res);
  }),
);

export default router;
