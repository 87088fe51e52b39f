import { Router } from 'express';
import { authMiddleware as requireAuth, requireStaff } from '../middleware/auth';
import { validate } from '../middleware/validation';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendNoContent, sendOk, sendPaginated } from '../utils/http';
import { parsePagination } from '../utils/pagination';
import { v } from '../utils/validators';
import { services } from '../services';

export const authorsRouter = Router();

const currentYear = new Date().getUTCFullYear();

const authorSchema = v.object({
  name: v.string().min(1).max(200),
  bio: v.string().max(10_000).optional(),
  birthYear: v.number().int().min(-3000).max(currentYear).optional(),
  nationality: v.string().min(2).max(2).optional(),
  website: v.string().matches(/^https?:\/\//, 'must be an http(s) URL').optional(),
});

authorsRouter.get(
  '/',
  asyncHandler(async (req, res) => {
    const search = typeof req.query.q === 'string' ? req.query.q : undefined;
    sendPaginated(res, await services.authors.list(search, parsePagination(req.query)));
  }),
);

authorsRouter.get(
  '/:id',
  asyncHandler(async (req, res) => {
    sendOk(res, await services.authors.get(req.params.id));
  }),
);

authorsRouter.get(
  '/:id/books',
  asyncHandler(async (req, res) => {
    sendOk(res, await services.authors.booksBy(req.params.id));
  }),
);

authorsRouter.post(
  '/',
  requireAuth,
  requireStaff,
  validate(authorSchema),
  asyncHandler(async (req, res) => {
    const author = await services.authors.create(req.body);
    sendCreated(res, author, `/api/authors/${author.id}`);
  }),
);

authorsRouter.put(
  '/:id',
  requireAuth,
  requireStaff,
  validate(authorSchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.authors.update(req.params.id, req.body));
  }),
);

authorsRouter.patch(
  '/:id',
  requireAuth,
  requireStaff,
  validate(authorSchema.partial()),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.authors.update(req.params.id, req.body));
  }),
);

authorsRouter.delete(
  '/:id',
  requireAuth,
  requireStaff,
  asyncHandler(async (req, res) => {
    await services.authors.remove(req.params.id);
    sendNoContent(res);
  }),
);
