import { Request, Response, NextFunction, RequestHandler } from 'express';
import { TooManyRequestsError } from '../utils/errors';

export interface RateLimitOptions {
  windowMs: number;
  max: number;
  keyGenerator?: (req: Request) => string;
  skip?: (req: Request) => boolean;
  store?: RateLimitStore;
  now?: () => number;
}

export interface RateLimitHit {
  count: number;
  resetAt: number;
}

export interface RateLimitStore {
  increment(key: string, windowMs: number, now: number): RateLimitHit;
  reset(key: string): void;
}

/** Fixed-window counter kept in process memory. Swap for Redis when scaling out. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly hits = new Map<string, RateLimitHit>();
  private lastSweep = 0;

  increment(key: string, windowMs: number, now: number): RateLimitHit {
    this.sweep(now, windowMs);
    const current = this.hits.get(key);
    if (!current || current.resetAt <= now) {
      const fresh = { count: 1, resetAt: now + windowMs };
      this.hits.set(key, fresh);
      return fresh;
    }
    current.count += 1;
    return current;
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  size(): number {
    return this.hits.size;
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) {
      return;
    }
    this.lastSweep = now;
    for (const [key, hit] of this.hits) {
      if (hit.resetAt <= now) {
        this.hits.delete(key);
      }
    }
  }
}

function defaultKey(req: Request): string {
  const userId = (req as Request & { user?: { id: string } }).user?.id;
  return userId ? `user:${userId}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

export function createRateLimiter(options: RateLimitOptions): RequestHandler {
  const store = options.store ?? new MemoryRateLimitStore();
  const keyOf = options.keyGenerator ?? defaultKey;
  const now = options.now ?? Date.now;

  return (req: Request, res: Response, next: NextFunction) => {
    if (options.skip?.(req)) {
      next();
      return;
    }
    const time = now();
    const hit = store.increment(keyOf(req), options.windowMs, time);
    const remaining = Math.max(0, options.max - hit.count);
    const resetSeconds = Math.max(0, Math.ceil((hit.resetAt - time) / 1000));

    res.setHeader('RateLimit-Limit', String(options.max));
    res.setHeader('RateLimit-Remaining', String(remaining));
    res.setHeader('RateLimit-Reset', String(resetSeconds));

    if (hit.count > options.max) {
      res.setHeader('Retry-After', String(resetSeconds));
      next(new TooManyRequestsError(resetSeconds));
      return;
    }
    next();
  };
}

export const rateLimiter: RequestHandler = createRateLimiter({
  windowMs: 60_000,
  max: 300,
  skip: (req) => req.path.startsWith('/health'),
});
