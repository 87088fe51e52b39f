import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { ValidationError } from '../utils/errors';
import type { Schema } from '../utils/validators';

export type RequestSource = 'body' | 'query' | 'params';

type ValidatedLocals = Partial<Record<RequestSource, unknown>>;

/**
 * Factory returning a middleware that validates one part of the request.
 * The parsed (coerced, trimmed) value replaces `req.body`; for query/params
 * it is stored under `res.locals.validated` because those objects are
 * getters in newer versions of the framework.
 */
export function validate<T>(schema: Schema<T>, source: RequestSource = 'body'): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const result = schema.parse(req[source], source === 'body' ? '' : source);
    if (!result.ok) {
      next(new ValidationError(result.issues));
      return;
    }
    const validated: ValidatedLocals = res.locals.validated ?? {};
    validated[source] = result.value;
    res.locals.validated = validated;
    if (source === 'body') {
      req.body = result.value;
    }
    next();
  };
}

export function validated<T>(res: Response, source: RequestSource): T {
  const store = res.locals.validated as ValidatedLocals | undefined;
  if (!store || !(source in store)) {
    throw new Error(`No validated ${source} on this request; did you forget validate(..., '${source}')?`);
  }
  return store[source] as T;
}

/** Rejects requests whose Content-Type is not JSON (for POST/PUT/PATCH). */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(req.method) && Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    next(new ValidationError([{ path: 'headers.content-type', message: 'must be application/json' }]));
    return;
  }
  next();
}
