import type { Request, Response } from 'express';
import { errorHandler, notFoundHandler } from '../../src/middleware/errorHandler';
import { ConflictError, NotFoundError, TooManyRequestsError } from '../../src/utils/errors';
import { mockNext, mockRequest, mockResponse } from '../helpers/mock';

function run(err: unknown, res = mockResponse()) {
  const req: Request = mockRequest({ method: 'POST', originalUrl: '/api/things' });
  errorHandler(err, req, res as Response, mockNext());
  return res;
}

describe('errorHandler', () => {
  it('serialises HttpErrors with their status and code', () => {
    const res = run(new ConflictError('already exists'));
    expect(res.statusCode).toBe(409);
    expect(res.body).toEqual({ error: { code: 'conflict', message: 'already exists' } });
  });

  it('hides the message of unexpected errors', () => {
    const res = run(new Error('database password is hunter2'));
    expect(res.statusCode).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
  });

  it('maps body-parser JSON errors to 400', () => {
    const parseError = Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed' });
    expect(run(parseError).statusCode).toBe(400);
  });

  it('sets Retry-After for rate limit errors', () => {
    const res = run(new TooManyRequestsError(42));
    expect(res.statusCode).toBe(429);
    expect(res.sentHeaders['retry-after']).toBe('42');
  });

  it('delegates to next() when headers were already sent', () => {
    const res = mockResponse();
    Object.assign(res, { headersSent: true });
    const next = mockNext();
    const err = new Error('late failure');
    errorHandler(err, mockRequest(), res, next);
    expect(next).toHaveBeenCalledWith(err);
    expect(res.status).not.toHaveBeenCalled();
  });

  it('includes the request id when the logger middleware set one', () => {
    const res = mockResponse();
    res.locals.requestId = 'req-123456';
    run(new ConflictError('x'), res);
    expect(res.body).toMatchObject({ requestId: 'req-123456' });
  });
});

describe('notFoundHandler', () => {
  it('forwards a NotFoundError describing the route', () => {
    const next = mockNext();
    notFoundHandler(mockRequest({ method: 'DELETE', path: '/nope' }), mockResponse(), next);
    const err = next.mock.calls[0][0] as NotFoundError;
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toContain('DELETE /nope');
  });
});
