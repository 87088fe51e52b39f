import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { logger as rootLogger, Logger, LogLevel } from '../utils/logger';
import { contextFromRequest, runWithContext, elapsedMs } from '../utils/requestContext';

export interface RequestLoggerOptions {
  logger?: Logger;
  /** Paths that are too noisy to log on success (health checks, static files). */
  skipPaths?: string[];
  slowRequestMs?: number;
}

function levelFor(status: number, durationMs: number, slowMs: number): LogLevel {
  if (status >= 500) return 'error';
  if (status >= 400 || durationMs >= slowMs) return 'warn';
  return 'info';
}

export function requestLogger(options: RequestLoggerOptions = {}): RequestHandler {
  const log = (options.logger ?? rootLogger).child({ component: 'http' });
  const skip = new Set(options.skipPaths ?? ['/health', '/health/live', '/health/ready']);
  const slowMs = options.slowRequestMs ?? 1_000;

  return (req: Request, res: Response, next: NextFunction) => {
    const context = contextFromRequest(req);
    res.setHeader('X-Request-Id', context.requestId);
    res.locals.requestId = context.requestId;

    res.on('finish', () => {
      const durationMs = elapsedMs(context);
      if (skip.has(req.path) && res.statusCode < 400) {
        return;
      }
      const level = levelFor(res.statusCode, durationMs, slowMs);
      log[level]('request completed', {
        requestId: context.requestId,
        method: req.method,
        path: context.path,
        status: res.statusCode,
        durationMs,
        userId: res.locals.user?.id,
        contentLength: res.getHeader('content-length'),
      });
    });

    runWithContext(context, () => next());
  };
}

export const defaultRequestLogger: RequestHandler = requestLogger();
