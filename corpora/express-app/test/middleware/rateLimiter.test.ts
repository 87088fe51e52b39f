import { createRateLimiter, MemoryRateLimitStore } from '../../src/middleware/rateLimiter';
import { TooManyRequestsError } from '../../src/utils/errors';
import { mockNext, mockRequest, mockResponse } from '../helpers/mock';

function limiterAt(clock: { now: number }, max = 2, store = new MemoryRateLimitStore()) {
  return createRateLimiter({ windowMs: 1_000, max, store, now: () => clock.now });
}

describe('createRateLimiter', () => {
  it('allows requests up to the limit and sets RateLimit headers', () => {
    const clock = { now: 0 };
    const limiter = limiterAt(clock);
    const res = mockResponse();
    const next = mockNext();

    limiter(mockRequest(), res, next);

    expect(next).toHaveBeenCalledWith();
    expect(res.sentHeaders['ratelimit-limit']).toBe('2');
    expect(res.sentHeaders['ratelimit-remaining']).toBe('1');
  });

  it('rejects the request that exceeds the limit with Retry-After', () => {
    const clock = { now: 0 };
    const limiter = limiterAt(clock);
    limiter(mockRequest(), mockResponse(), mockNext());
    limiter(mockRequest(), mockResponse(), mockNext());

    const res = mockResponse();
    const next = mockNext();
    limiter(mockRequest(), res, next);

    expect(next).toHaveBeenCalledWith(expect.any(TooManyRequestsError));
    expect(res.sentHeaders['retry-after']).toBe('1');
  });

  it('starts a new window once the old one expires', () => {
    const clock = { now: 0 };
    const limiter = limiterAt(clock, 1);
    limiter(mockRequest(), mockResponse(), mockNext());
    clock.now = 1_500;

    const next = mockNext();
    limiter(mockRequest(), mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
  });

  it('tracks clients independently by IP', () => {
    const clock = { now: 0 };
    const limiter = limiterAt(clock, 1);
    limiter(mockRequest({ ip: '10.0.0.1' }), mockResponse(), mockNext());

    const next = mockNext();
    limiter(mockRequest({ ip: '10.0.0.2' }), mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
  });

  it('honours the skip predicate', () => {
    const limiter = createRateLimiter({ windowMs: 1_000, max: 0, skip: () => true });
    const next = mockNext();
    limiter(mockRequest(), mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
  });
});

describe('MemoryRateLimitStore', () => {
  it('sweeps expired entries', () => {
    const store = new MemoryRateLimitStore();
    store.increment('a', 100, 0);
    store.increment('b', 100, 0);
    store.increment('c', 100, 500);
    expect(store.size()).toBe(1);
  });
});
