import { decodeToken, signToken, TokenError, verifyToken } from '../../src/utils/token';

const SECRET = 'unit-test-secret';
const claims = { sub: 'cus_abc123def4567890', email: 'a@b.test', role: 'customer', type: 'access' as const };

describe('token', () => {
  it('round-trips claims', () => {
    const token = signToken(claims, SECRET, 60);
    expect(verifyToken(token, SECRET)).toMatchObject(claims);
  });

  it('rejects a token signed with another secret', () => {
    const token = signToken(claims, 'other-secret', 60);
    expect(() => verifyToken(token, SECRET)).toThrow(TokenError);
  });

  it('rejects expired tokens', () => {
    const token = signToken(claims, SECRET, 60, Date.now() - 120_000);
    try {
      verifyToken(token, SECRET);
      fail('expected verifyToken to throw');
    } catch (err) {
      expect((err as TokenError).reason).toBe('expired');
    }
  });

  it('rejects refresh tokens where access tokens are expected', () => {
    const token = signToken({ ...claims, type: 'refresh' }, SECRET, 60);
    expect(() => verifyToken(token, SECRET, 'access')).toThrow(/Expected a access token/);
  });

  it('decodes without verifying', () => {
    const token = signToken(claims, SECRET, 60);
    expect(decodeToken(token)?.sub).toBe(claims.sub);
    expect(decodeToken('garbage')).toBeNull();
  });
});
