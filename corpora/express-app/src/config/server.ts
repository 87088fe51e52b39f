import express, { Application } from 'express';
import path from 'path';
import type { AppConfig } from './env';

const STATIC_MAX_AGE = '1d';

/**
 * Low-level server configuration shared by the real app and the test app:
 * proxy trust, body parsing and static assets.
 */
export function configureServer(app: Application, config: AppConfig): void {
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('json spaces', config.env === 'development' ? 2 : 0);
  app.set('etag', 'strong');

  app.use(express.json({ limit: config.bodyLimit, strict: true }));
  app.use(express.urlencoded({ extended: false, limit: config.bodyLimit }));

  app.use(
    '/public',
    express.static(path.join(__dirname, 'public'), {
      maxAge: STATIC_MAX_AGE,
      index: false,
      fallthrough: true,
    }),
  );
  app.use(
    '/docs',
    express.static(path.resolve(process.cwd(), config.publicDir, 'docs'), {
      maxAge: config.env === 'production' ? STATIC_MAX_AGE : 0,
      extensions: ['html'],
    }),
  );

  app.use((_req, res, next) => {
    res.setHeader('Server', config.serverBanner);
    next();
  });
}

/** Raw body parser used only by the payment-provider webhook (signature check needs the bytes). */
export const rawJsonBody = express.raw({ type: 'application/json', limit: '256kb' });
