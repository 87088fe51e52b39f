import { Router } from 'express';
import { optionalAuth, requireStaff } from '../middleware/auth';
import { validate } from '../middleware/validation';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendNoContent, sendOk, sendPaginated, setCacheControl } from '../utils/http';
import { parsePagination } from '../utils/pagination';
import { v } from '../utils/validators';
import { services } from '../services';

const router = Router();

const categorySchema = v.object({
  name: v.string().min(2).max(80),
  parentId: v.id('cat').optional(),
  position: v.number().int().min(0).optional(),
});

// Reads are public; writes use optionalAuth + requireStaff, which rejects
// anonymous callers with 401 and non-staff with 403.
router.use(optionalAuth);

router.get(
  '/',
  asyncHandler(async (_req, res) => {
    setCacheControl(res, 300);
    sendOk(res, await services.categories.tree());
  }),
);

router.get(
  '/:slug',
  asyncHandler(async (req, res) => {
    setCacheControl(res, 300);
    sendOk(res, await services.categories.getBySlug(req.params.slug));
  }),
);

router.get(
  '/:slug/books',
  asyncHandler(async (req, res) => {
    const category = await services.categories.getBySlug(req.params.slug);
    const result = await services.books.list(
      { categoryId: category.id },
      parsePagination(req.query),
      { field: 'title', direction: 'asc' },
    );
    sendPaginated(res, result);
  }),
);

router.post(
  '/',
  requireStaff,
  validate(categorySchema),
  asyncHandler(async (req, res) => {
    const category = await services.categories.create(req.body);
    sendCreated(res, category, `/api/categories/${category.slug}`);
  }),
);

router.patch(
  '/:id',
  requireStaff,
  validate(categorySchema.partial()),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.categories.update(req.params.id, req.body));
  }),
);

router.delete(
  '/:id',
  requireStaff,
  asyncHandler(async (req, res) => {
    await services.categories.remove(req.params.id);
    sendNoContent(res);
  }),
);

export default router;
