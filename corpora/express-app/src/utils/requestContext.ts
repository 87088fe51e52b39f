import { AsyncLocalStorage } from 'async_hooks';
import type { HttpRequest, RequestContext } from '../types/http';
import { generateRequestId } from './ids';

const storage = new AsyncLocalStorage<RequestContext>();

const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{6,64}$/;

export function contextFromRequest(req: HttpRequest): RequestContext {
  const incoming = req.header(REQUEST_ID_HEADER);
  return {
    requestId: incoming && VALID_REQUEST_ID.test(incoming) ? incoming : generateRequestId(),
    method: req.method,
    path: req.originalUrl || req.url,
    startedAt: Date.now(),
    ip: req.ip,
  };
}

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function elapsedMs(context: RequestContext, now = Date.now()): number {
  return now - context.startedAt;
}
