/**
 * HTTP-layer type aliases. Framework-agnostic helpers (utils/requestContext)
 * import from here instead of naming the web framework themselves, which keeps
 * the surface to change small if the framework is ever swapped out.
 */
import type { AuthUser } from './index';

export type { Request as HttpRequest, Response as HttpResponse, NextFunction } from 'express';

export interface RequestContext {
  requestId: string;
  method: string;
  path: string;
  startedAt: number;
  ip?: string;
  user?: AuthUser;
}
