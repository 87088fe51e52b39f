import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { config } from '../config/env';
import { verifyToken, TokenError } from '../utils/token';
import { ForbiddenError, UnauthorizedError } from '../utils/errors';
import { Role } from '../models/customer';
import type { AuthUser } from '../types';

export interface AuthenticatedRequest extends Request {
  user: AuthUser;
}

const BEARER_PATTERN = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i;
const KNOWN_ROLES = new Set<string>(Object.values(Role));

export function extractBearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) {
    return undefined;
  }
  const match = BEARER_PATTERN.exec(header.trim());
  return match ? match[1] : undefined;
}

function resolveUser(token: string, secret: string): AuthUser {
  try {
    const payload = verifyToken(token, secret, 'access');
    if (!KNOWN_ROLES.has(payload.role)) {
      throw new UnauthorizedError('Token carries an unknown role');
    }
    return { id: payload.sub, email: payload.email, role: payload.role as Role };
  } catch (err) {
    if (err instanceof TokenError) {
      throw new UnauthorizedError(err.reason === 'expired' ? 'Access token expired' : 'Invalid access token');
    }
    throw err;
  }
}

/**
 * Requires a valid `Authorization: Bearer <token>` header and attaches the
 * authenticated user to `req.user` (and `res.locals.user` for templates/logs).
 */
export function authMiddleware(req: Request, res: Response, next: NextFunction): void {
  const token = extractBearerToken(req);
  if (!token) {
    res.setHeader('WWW-Authenticate', 'Bearer realm="bookstore"');
    next(new UnauthorizedError('Missing bearer token'));
    return;
  }
  try {
    const user = resolveUser(token, config.jwtSecret);
    (req as AuthenticatedRequest).user = user;
    res.locals.user = user;
    next();
  } catch (err) {
    res.setHeader('WWW-Authenticate', 'Bearer realm="bookstore", error="invalid_token"');
    next(err);
  }
}

/** Like authMiddleware, but anonymous requests are allowed through. */
export function optionalAuth(req: Request, res: Response, next: NextFunction): void {
  const token = extractBearerToken(req);
  if (!token) {
    next();
    return;
  }
  try {
    const user = resolveUser(token, config.jwtSecret);
    (req as AuthenticatedRequest).user = user;
    res.locals.user = user;
  } catch {
    // A bad token on a public endpoint is treated as anonymous.
  }
  next();
}

export function isAuthenticated(req: Request): req is AuthenticatedRequest {
  return Boolean((req as Partial<AuthenticatedRequest>).user);
}

export function currentUser(req: Request): AuthUser {
  if (!isAuthenticated(req)) {
    throw new UnauthorizedError();
  }
  return req.user;
}

export function requireRole(...roles: Role[]): RequestHandler {
  const allowed = new Set(roles);
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!isAuthenticated(req)) {
      next(new UnauthorizedError());
      return;
    }
    if (!allowed.has(req.user.role)) {
      next(new ForbiddenError(`Requires role: ${roles.join(' or ')}`));
      return;
    }
    next();
  };
}

export const requireStaff = requireRole(Role.Staff, Role.Admin);
export const requireAdmin = requireRole(Role.Admin);

/** Allows the owner of a resource (by route param) or staff through. */
export function requireSelfOrStaff(param = 'customerId'): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!isAuthenticated(req)) {
      next(new UnauthorizedError());
      return;
    }
    const { user } = req;
    if (user.id === req.params[param] || user.role === Role.Staff || user.role === Role.Admin) {
      next();
      return;
    }
    next(new ForbiddenError());
  };
}
