import express from 'express';
import { authMiddleware, requireRole, requireStaff } from '../middleware/auth';
import { validate, validated } from '../middleware/validation';
import { asyncHandler } from '../utils/asyncHandler';
import { sendCreated, sendNoContent, sendOk, sendPaginated, setCacheControl } from '../utils/http';
import { parsePagination, parseSort } from '../utils/pagination';
import { Infer, v } from '../utils/validators';
import { Book, BookFormat } from '../models/book';
import { Role } from '../models/customer';
import { services } from '../services';

const router = express.Router();

const SORTABLE: (keyof Book)[] = ['title', 'priceCents', 'publishedAt', 'createdAt'];

const listQuerySchema = v
  .object({
    q: v.string().max(200).optional(),
    author: v.id('au').optional(),
    category: v.id('cat').optional(),
    format: v.enum(Object.values(BookFormat)).optional(),
    tag: v.string().max(40).optional(),
    minPrice: v.number().coerce().int().min(0).optional(),
    maxPrice: v.number().coerce().int().min(0).optional(),
    sort: v.string().optional(),
    page: v.number().coerce().int().positive().optional(),
    pageSize: v.number().coerce().int().positive().optional(),
  })
  .refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, 'minPrice must be <= maxPrice');

const createBookSchema = v.object({
  isbn: v.string().min(10).max(17),
  title: v.string().min(1).max(300),
  subtitle: v.string().max(300).optional(),
  authorIds: v.array(v.id('au')).min(1).max(10),
  categoryIds: v.array(v.id('cat')).max(5).optional(),
  format: v.enum(Object.values(BookFormat)),
  priceCents: v.number().int().min(0).max(1_000_000),
  currency: v.enum(['USD', 'EUR', 'GBP'] as const).optional(),
  publishedAt: v.date().optional(),
  pageCount: v.number().int().positive().optional(),
  description: v.string().max(5_000).optional(),
  tags: v.array(v.string().max(40)).max(20).optional(),
});

const updateBookSchema = createBookSchema.partial();

type ListQuery = Infer<typeof listQuerySchema>;
type CreateBookBody = Infer<typeof createBookSchema>;

router.get(
  '/',
  validate(listQuerySchema, 'query'),
  asyncHandler(async (req, res) => {
    const query = validated<ListQuery>(res, 'query');
    const result = await services.books.list(
      {
        text: query.q,
        authorId: query.author,
        categoryId: query.category,
        format: query.format,
        tag: query.tag,
        minPriceCents: query.minPrice,
        maxPriceCents: query.maxPrice,
      },
      parsePagination(req.query),
      parseSort<Book>(query.sort, SORTABLE, { field: 'title', direction: 'asc' }),
    );
    setCacheControl(res, 30);
    sendPaginated(res, result);
  }),
);

router.get(
  '/isbn/:isbn',
  asyncHandler(async (req, res) => {
    const book = await services.books.getByIsbn(req.params.isbn);
    setCacheControl(res, 300);
    sendOk(res, book);
  }),
);

router.get(
  '/:id',
  asyncHandler(async (req, res) => {
    const book = await services.books.getWithAuthors(req.params.id);
    setCacheControl(res, 60);
    sendOk(res, book);
  }),
);

router.get(
  '/:id/related',
  asyncHandler(async (req, res) => {
    const limit = Math.min(Number(req.query.limit ?? 5) || 5, 20);
    sendOk(res, await services.books.related(req.params.id, limit));
  }),
);

router.get(
  '/:id/availability',
  asyncHandler(async (req, res) => {
    const available = await services.inventory.availability(req.params.id);
    setCacheControl(res, 0);
    sendOk(res, { bookId: req.params.id, available: Number.isFinite(available) ? available : null, inStock: available > 0 });
  }),
);

router.post(
  '/',
  authMiddleware,
  requireStaff,
  validate(createBookSchema),
  asyncHandler(async (req, res) => {
    const body = req.body as CreateBookBody;
    const book = await services.books.create(body);
    sendCreated(res, book, `/api/books/${book.id}`);
  }),
);

router.patch(
  '/:id',
  authMiddleware,
  requireStaff,
  validate(updateBookSchema),
  asyncHandler(async (req, res) => {
    sendOk(res, await services.books.update(req.params.id, req.body));
  }),
);

router.post(
  '/:id/activate',
  authMiddleware,
  requireStaff,
  asyncHandler(async (req, res) => {
    sendOk(res, await services.books.setActive(req.params.id, true));
  }),
);

router.post(
  '/:id/deactivate',
  authMiddleware,
  requireStaff,
  asyncHandler(async (req, res) => {
    sendOk(res, await services.books.setActive(req.params.id, false));
  }),
);

router.delete(
  '/:id',
  authMiddleware,
  requireRole(Role.Admin),
  asyncHandler(async (req, res) => {
    await services.books.remove(req.params.id);
    sendNoContent(res);
  }),
);

export default router;
