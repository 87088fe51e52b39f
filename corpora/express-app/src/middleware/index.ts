export * from './auth';
export { authMiddleware as requireAuth } from './auth';
export { default as corsMiddleware, type CorsOptions } from './cors';
export * from './logger';
export { rateLimiter, createRateLimiter, MemoryRateLimitStore } from './rateLimiter';
export type { RateLimitOptions, RateLimitStore } from './rateLimiter';
export * from './validation';
export { errorHandler, notFoundHandler } from './errorHandler';
