import type { Request, Response, NextFunction, RequestHandler } from 'express';

export type AsyncRouteHandler = (req: Request, res: Response, next: NextFunction) => Promise<unknown>;

/**
 * Express 4 does not forward rejected promises to the error handler, so every
 * async route is wrapped to route failures to `next(err)`.
 */
export function asyncHandler(fn: AsyncRouteHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    fn(req, res, next).catch(next);
  };
}

/** Wraps every handler of a route definition at once. */
export function asyncHandlers(...fns: AsyncRouteHandler[]): RequestHandler[] {
  return fns.map(asyncHandler);
}
