import { Request, Response, NextFunction } from 'express';
import { HttpError, isHttpError, NotFoundError, TooManyRequestsError } from '../utils/errors';
import { logger } from '../utils/logger';

const log = logger.child({ component: 'errorHandler' });

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
}

function fromBodyParser(err: BodyParserError): HttpError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new HttpError(400, 'Malformed JSON body', 'invalid_json');
    case 'entity.too.large':
      return new HttpError(413, 'Request body too large', 'payload_too_large');
    case 'encoding.unsupported':
      return new HttpError(415, 'Unsupported body encoding', 'unsupported_encoding');
    default:
      return undefined;
  }
}

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError('Route', `${req.method} ${req.path}`));
}

/**
 * Final error handler. Express recognises it by its four parameters, so
 * `next` must stay in the signature even though it is only used when the
 * response has already started streaming.
 */
export function errorHandler(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) {
    next(err);
    return;
  }

  const httpError =
    (isHttpError(err) && err) ||
    (err instanceof Error && fromBodyParser(err as BodyParserError)) ||
    new HttpError(500, err instanceof Error ? err.message : 'Unknown error', 'internal_error');

  if (httpError instanceof TooManyRequestsError) {
    res.setHeader('Retry-After', String(httpError.retryAfterSeconds));
  }

  const fields = {
    requestId: res.locals.requestId,
    method: req.method,
    path: req.originalUrl,
    status: httpError.status,
    code: httpError.code,
  };
  if (httpError.status >= 500) {
    log.error('unhandled error', { ...fields, err });
  } else {
    log.debug('request rejected', fields);
  }

  res.status(httpError.status).json({
    ...httpError.toJSON(),
    ...(res.locals.requestId ? { requestId: res.locals.requestId } : {}),
  });
}

export default errorHandler;
