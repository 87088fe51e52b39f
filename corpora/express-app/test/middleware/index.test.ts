import * as middleware from '../../src/middleware';
import { authMiddleware, requireAuth, errorHandler, validate } from '../../src/middleware';

describe('middleware barrel (src/middleware/index.ts)', () => {
  it('re-exports authMiddleware under the requireAuth alias', () => {
    expect(requireAuth).toBe(authMiddleware);
  });

  it('exposes every middleware the app wires up', () => {
    const expected = [
      'authMiddleware',
      'optionalAuth',
      'requireRole',
      'requireStaff',
      'requireAdmin',
      'corsMiddleware',
      'requestLogger',
      'rateLimiter',
      'createRateLimiter',
      'validate',
      'errorHandler',
      'notFoundHandler',
    ];
    for (const name of expected) {
      expect(middleware).toHaveProperty(name);
    }
  });

  it('keeps the error handler at four parameters so express treats it as one', () => {
    expect(errorHandler).toHaveLength(4);
  });

  it('exports validate as a factory rather than a middleware', () => {
    expect(validate).toHaveLength(1);
  });
});
