import { Request, Response, NextFunction, RequestHandler } from 'express';

export interface CorsOptions {
  origins: string[] | '*';
  methods?: string[];
  allowedHeaders?: string[];
  exposedHeaders?: string[];
  credentials?: boolean;
  maxAgeSeconds?: number;
}

const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const DEFAULT_ALLOWED_HEADERS = ['Content-Type', 'Authorization', 'X-Request-Id'];
const DEFAULT_EXPOSED_HEADERS = ['X-Total-Count', 'X-Request-Id', 'RateLimit-Remaining', 'Retry-After'];

function originAllowed(origin: string, allowed: string[] | '*'): boolean {
  if (allowed === '*') {
    return true;
  }
  return allowed.some((entry) => {
    if (entry.startsWith('*.')) {
      return origin.endsWith(entry.slice(1)) && /^https?:\/\//.test(origin);
    }
    return entry === origin;
  });
}

export function corsMiddleware(options: CorsOptions): RequestHandler {
  const methods = (options.methods ?? DEFAULT_METHODS).join(', ');
  const allowedHeaders = (options.allowedHeaders ?? DEFAULT_ALLOWED_HEADERS).join(', ');
  const exposedHeaders = (options.exposedHeaders ?? DEFAULT_EXPOSED_HEADERS).join(', ');
  const maxAge = String(options.maxAgeSeconds ?? 600);

  if (options.credentials && options.origins === '*') {
    throw new Error('CORS: credentials cannot be combined with a wildcard origin');
  }

  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    res.vary('Origin');

    if (!origin || !originAllowed(origin, options.origins)) {
      if (req.method === 'OPTIONS' && origin) {
        res.status(403).end();
        return;
      }
      next();
      return;
    }

    res.setHeader('Access-Control-Allow-Origin', options.origins === '*' ? '*' : origin);
    res.setHeader('Access-Control-Expose-Headers', exposedHeaders);
    if (options.credentials) {
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }

    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', methods);
      res.setHeader('Access-Control-Allow-Headers', req.header('access-control-request-headers') ?? allowedHeaders);
      res.setHeader('Access-Control-Max-Age', maxAge);
      res.status(204).end();
      return;
    }
    next();
  };
}

export default corsMiddleware;
