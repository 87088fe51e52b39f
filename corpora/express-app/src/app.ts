import express, { Application, Request, Response } from 'express';
import { config as defaultConfig, AppConfig } from './config/env';
import { configureServer } from './config/server';
import {
  authMiddleware,
  corsMiddleware,
  currentUser,
  errorHandler,
  notFoundHandler,
  rateLimiter,
  requestLogger,
  requireStaff,
} from './middleware';
import {
  adminRouter,
  authorsRouter,
  authRouter,
  booksRouter,
  cartRouter,
  categoriesRouter,
  createReportsRouter,
  customersRouter,
  healthRouter,
  inventoryRouter,
  ordersRouter,
  paymentsRouter,
  reviewsRouter,
} from './routes';
import { services } from './services';
import { asyncHandler } from './utils/asyncHandler';
import { sendOk } from './utils/http';

export interface AppOptions {
  config?: AppConfig;
  /** Disable request logging (useful for noisy test runs). */
  quiet?: boolean;
}

export const API_VERSION = '1.4';

export function createApp(options: AppOptions = {}): Application {
  const config = options.config ?? defaultConfig;
  const app = express();

  if (!options.quiet) {
    app.use(requestLogger({ slowRequestMs: 500 }));
  }
  app.use(corsMiddleware({ origins: config.corsOrigins, credentials: config.corsOrigins.length > 0 }));

  // The payment webhook needs the raw request body for its signature check,
  // so its router is mounted before configureServer() installs the JSON parser.
  app.use('/api/payments', paymentsRouter);

  configureServer(app, config);

  app.use('/health', healthRouter);
  app.use('/api', rateLimiter);

  app.get('/api', (_req: Request, res: Response) => {
    res.json({ name: 'bookstore-api', version: API_VERSION, docs: '/docs' });
  });

  app.get(
    '/api/me',
    authMiddleware,
    asyncHandler(async (req, res) => {
      sendOk(res, await services.customers.get(currentUser(req).id));
    }),
  );

  app.use('/api/auth', authRouter);
  app.use('/api/books/:bookId/reviews', reviewsRouter);
  app.use('/api/books', booksRouter);
  app.use('/api/reviews', reviewsRouter);
  app.use('/api/authors', authorsRouter);
  app.use('/api/categories', categoriesRouter);
  app.use('/api/customers', customersRouter);
  app.use('/api/cart', cartRouter);
  app.use('/api/orders', ordersRouter);
  app.use('/api/inventory', inventoryRouter);
  app.use('/api/reports', createReportsRouter(services.reports, [authMiddleware, requireStaff]));
  app.use('/api/admin', adminRouter);

  app.use(notFoundHandler);
  app.use(errorHandler);

  return app;
}

export default createApp;
