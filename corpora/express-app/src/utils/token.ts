import { createHmac, timingSafeEqual } from 'crypto';

export type TokenType = 'access' | 'refresh';

export interface TokenClaims {
  sub: string;
  email: string;
  role: string;
  type: TokenType;
}

export interface TokenPayload extends TokenClaims {
  iat: number;
  exp: number;
}

export type TokenFailure = 'malformed' | 'signature' | 'expired' | 'wrong_type';

export class TokenError extends Error {
  constructor(public readonly reason: TokenFailure, message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

function base64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

function fromBase64url(input: string): Buffer {
  const padded = input.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (input.length % 4)) % 4);
  return Buffer.from(padded, 'base64');
}

function sign(data: string, secret: string): string {
  return base64url(createHmac('sha256', secret).update(data).digest());
}

export function signToken(claims: TokenClaims, secret: string, ttlSeconds: number, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const payload: TokenPayload = { ...claims, iat, exp: iat + ttlSeconds };
  const body = `${HEADER}.${base64url(JSON.stringify(payload))}`;
  return `${body}.${sign(body, secret)}`;
}

export function decodeToken(token: string): TokenPayload | null {
  const parts = token.split('.');
  if (parts.length !== 3) {
    return null;
  }
  try {
    return JSON.parse(fromBase64url(parts[1]).toString('utf8')) as TokenPayload;
  } catch {
    return null;
  }
}

export function verifyToken(token: string, secret: string, expectedType: TokenType = 'access', now = Date.now()): TokenPayload {
  const parts = token.split('.');
  if (parts.length !== 3) {
    throw new TokenError('malformed', 'Token must have three segments');
  }
  const [header, body, signature] = parts;
  const expected = Buffer.from(sign(`${header}.${body}`, secret));
  const actual = Buffer.from(signature);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw new TokenError('signature', 'Token signature is invalid');
  }
  const payload = decodeToken(token);
  if (!payload || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') {
    throw new TokenError('malformed', 'Token payload is malformed');
  }
  if (payload.exp * 1000 <= now) {
    throw new TokenError('expired', 'Token has expired');
  }
  if (payload.type !== expectedType) {
    throw new TokenError('wrong_type', `Expected a ${expectedType} token`);
  }
  return payload;
}
