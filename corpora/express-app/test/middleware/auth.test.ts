import { authMiddleware, optionalAuth, requireRole, currentUser, extractBearerToken, AuthenticatedRequest } from '../../src/middleware/auth';
import { Role } from '../../src/models/customer';
import { ForbiddenError, UnauthorizedError } from '../../src/utils/errors';
import { mockNext, mockRequest, mockResponse, tokenFor, DEFAULT_TEST_USER } from '../helpers/mock';

describe('extractBearerToken', () => {
  it('returns the token from a well-formed header', () => {
    const req = mockRequest({ headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(extractBearerToken(req)).toBe('abc.def.ghi');
  });

  it('is case-insensitive about the scheme', () => {
    const req = mockRequest({ headers: { authorization: 'bearer abc.def.ghi' } });
    expect(extractBearerToken(req)).toBe('abc.def.ghi');
  });

  it('ignores other schemes', () => {
    const req = mockRequest({ headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(extractBearerToken(req)).toBeUndefined();
  });
});

describe('authMiddleware', () => {
  it('rejects requests without a token and sets WWW-Authenticate', () => {
    const req = mockRequest();
    const res = mockResponse();
    const next = mockNext();

    authMiddleware(req, res, next);

    expect(next).toHaveBeenCalledWith(expect.any(UnauthorizedError));
    expect(res.sentHeaders['www-authenticate']).toContain('Bearer');
  });

  it('attaches the user for a valid access token', () => {
    const req = mockRequest({ headers: { authorization: `Bearer ${tokenFor()}` } });
    const res = mockResponse();
    const next = mockNext();

    authMiddleware(req, res, next);

    expect(next).toHaveBeenCalledWith();
    expect((req as AuthenticatedRequest).user).toEqual(DEFAULT_TEST_USER);
    expect(res.locals.user).toEqual(DEFAULT_TEST_USER);
  });

  it('rejects an expired token', () => {
    const req = mockRequest({ headers: { authorization: `Bearer ${tokenFor({}, -10)}` } });
    const next = mockNext();

    authMiddleware(req, mockResponse(), next);

    const err = next.mock.calls[0][0] as UnauthorizedError;
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.message).toMatch(/expired/);
  });

  it('rejects a token with a tampered signature', () => {
    const token = tokenFor();
    const tampered = `${token.slice(0, -2)}xx`;
    const next = mockNext();

    authMiddleware(mockRequest({ headers: { authorization: `Bearer ${tampered}` } }), mockResponse(), next);

    expect(next).toHaveBeenCalledWith(expect.any(UnauthorizedError));
  });
});

describe('optionalAuth', () => {
  it('lets anonymous requests through without a user', () => {
    const req = mockRequest();
    const next = mockNext();
    optionalAuth(req, mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
    expect((req as Partial<AuthenticatedRequest>).user).toBeUndefined();
  });

  it('treats an invalid token as anonymous instead of failing', () => {
    const req = mockRequest({ headers: { authorization: 'Bearer not.a.token' } });
    const next = mockNext();
    optionalAuth(req, mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
  });
});

describe('requireRole', () => {
  it('returns 401 when authMiddleware has not run', () => {
    const next = mockNext();
    requireRole(Role.Admin)(mockRequest(), mockResponse(), next);
    expect(next).toHaveBeenCalledWith(expect.any(UnauthorizedError));
  });

  it('returns 403 for an authenticated user without the role', () => {
    const req = mockRequest({ headers: { authorization: `Bearer ${tokenFor()}` } });
    const next = mockNext();
    authMiddleware(req, mockResponse(), mockNext());
    requireRole(Role.Staff, Role.Admin)(req, mockResponse(), next);
    expect(next).toHaveBeenCalledWith(expect.any(ForbiddenError));
  });

  it('passes users that hold one of the roles', () => {
    const req = mockRequest({ headers: { authorization: `Bearer ${tokenFor({ role: Role.Staff })}` } });
    const next = mockNext();
    authMiddleware(req, mockResponse(), mockNext());
    requireRole(Role.Staff, Role.Admin)(req, mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
  });
});

describe('currentUser', () => {
  it('throws when the request is anonymous', () => {
    expect(() => currentUser(mockRequest())).toThrow(UnauthorizedError);
  });
});
