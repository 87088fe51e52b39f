import express, { Express, NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { authMiddleware } from '../../src/middleware/auth';
import { errorHandler, notFoundHandler } from '../../src/middleware/errorHandler';
import { config } from '../../src/config/env';
import { signToken } from '../../src/utils/token';
import { Role } from '../../src/models/customer';
import type { AuthUser } from '../../src/types';

export interface MockAppOptions {
  /** Where to mount the router under test; defaults to "/". */
  mountPath?: string;
  /** Put authMiddleware in front of the router, like app.ts does for some mounts. */
  requireAuth?: boolean;
  /** Extra middleware installed before the router. */
  middleware?: RequestHandler[];
}

/**
 * Builds a minimal express app around a single router with the real JSON
 * parser and error handler, so route tests exercise the same error shapes as
 * production without booting the whole application.
 */
export function buildMockApp(router: Router | RequestHandler, options: MockAppOptions = {}): Express {
  const app = express();
  app.use(express.json());
  for (const middleware of options.middleware ?? []) {
    app.use(middleware);
  }
  if (options.requireAuth) {
    app.use(authMiddleware);
  }
  app.use(options.mountPath ?? '/', router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

export const DEFAULT_TEST_USER: AuthUser = {
  id: 'cus_testuser00000001',
  email: 'reader@example.test',
  role: Role.Customer,
};

export function tokenFor(user: Partial<AuthUser> = {}, ttlSeconds = 300): string {
  const merged = { ...DEFAULT_TEST_USER, ...user };
  return signToken({ sub: merged.id, email: merged.email, role: merged.role, type: 'access' }, config.jwtSecret, ttlSeconds);
}

export function authHeader(user: Partial<AuthUser> = {}): { Authorization: string } {
  return { Authorization: `Bearer ${tokenFor(user)}` };
}

export function staffHeader(): { Authorization: string } {
  return authHeader({ id: 'cus_staffuser0000001', email: 'staff@bookstore.test', role: Role.Staff });
}

export function adminHeader(): { Authorization: string } {
  return authHeader({ id: 'cus_adminuser0000001', email: 'admin@bookstore.test', role: Role.Admin });
}

type HeaderMap = Record<string, string | undefined>;

export function mockRequest(overrides: Partial<Request> & { headers?: HeaderMap } = {}): Request {
  const headers: HeaderMap = {};
  for (const [key, value] of Object.entries(overrides.headers ?? {})) {
    headers[key.toLowerCase()] = value;
  }
  const req = {
    method: 'GET',
    url: '/',
    originalUrl: '/',
    path: '/',
    ip: '127.0.0.1',
    params: {},
    query: {},
    body: undefined,
    ...overrides,
    headers,
    header(name: string) {
      return headers[name.toLowerCase()];
    },
    get(name: string) {
      return headers[name.toLowerCase()];
    },
    is(type: string) {
      const contentType = headers['content-type'] ?? '';
      return contentType.includes(type) ? type : false;
    },
  };
  return req as unknown as Request;
}

export interface MockResponse extends Response {
  body?: unknown;
  sentHeaders: Record<string, string>;
}

export function mockResponse(): MockResponse {
  const sentHeaders: Record<string, string> = {};
  const res: Partial<MockResponse> & { statusCode: number } = {
    statusCode: 200,
    headersSent: false,
    locals: {},
    sentHeaders,
  };
  res.status = jest.fn((code: number) => {
    res.statusCode = code;
    return res as MockResponse;
  });
  res.json = jest.fn((body: unknown) => {
    res.body = body;
    return res as MockResponse;
  });
  res.send = jest.fn((body: unknown) => {
    res.body = body;
    return res as MockResponse;
  });
  res.end = jest.fn(() => res as MockResponse) as unknown as MockResponse['end'];
  res.setHeader = jest.fn((name: string, value: string | number | readonly string[]) => {
    sentHeaders[name.toLowerCase()] = String(value);
    return res as MockResponse;
  });
  res.getHeader = jest.fn((name: string) => sentHeaders[name.toLowerCase()]);
  res.vary = jest.fn(() => res as MockResponse);
  return res as MockResponse;
}

export function mockNext(): jest.Mock<void, [unknown?]> & NextFunction {
  return jest.fn() as jest.Mock<void, [unknown?]> & NextFunction;
}
