import type { LogLevel } from '../utils/logger';
import { isCurrency, Currency } from '../utils/money';

export type NodeEnv = 'development' | 'test' | 'production';

export interface RateLimitConfig {
  windowMs: number;
  max: number;
}

export interface AppConfig {
  env: NodeEnv;
  host: string;
  port: number;
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  corsOrigins: string[];
  rateLimit: RateLimitConfig;
  authRateLimit: RateLimitConfig;
  bodyLimit: string;
  publicDir: string;
  trustProxy: boolean;
  logLevel: LogLevel;
  taxRegion: string;
  currency: Currency;
  seedDemoData: boolean;
  /** Sent as the `Server` header; informational only. */
  serverBanner: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function readString(env: Env, name: string, fallback?: string): string {
  const value = env[name];
  if (value !== undefined && value !== '') {
    return value;
  }
  if (fallback === undefined) {
    throw new ConfigError(`Missing required environment variable ${name}`);
  }
  return fallback;
}

function readInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number.parseInt(raw, 10);
  if (Number.isNaN(value)) {
    throw new ConfigError(`Environment variable ${name} must be an integer, got "${raw}"`);
  }
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') {
    return fallback;
  }
  return raw === '1' || raw === 'true' || raw === 'yes';
}

function readList(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (!raw) {
    return fallback;
  }
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function readNodeEnv(env: Env): NodeEnv {
  const value = env.NODE_ENV;
  return value === 'production' || value === 'test' ? value : 'development';
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = readNodeEnv(env);
  const isProduction = nodeEnv === 'production';
  const currency = readString(env, 'CURRENCY', 'USD');
  if (!isCurrency(currency)) {
    throw new ConfigError(`Unsupported CURRENCY "${currency}"`);
  }
  const jwtSecret = readString(env, 'JWT_SECRET', isProduction ? undefined : 'dev-only-secret-change-me');
  if (isProduction && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters in production');
  }
  return {
    env: nodeEnv,
    host: readString(env, 'HOST', '0.0.0.0'),
    port: readInt(env, 'PORT', 3000),
    jwtSecret,
    accessTokenTtlSeconds: readInt(env, 'ACCESS_TOKEN_TTL', 15 * 60),
    refreshTokenTtlSeconds: readInt(env, 'REFRESH_TOKEN_TTL', 14 * 24 * 60 * 60),
    corsOrigins: readList(env, 'CORS_ORIGINS', isProduction ? [] : ['http://localhost:5173']),
    rateLimit: {
      windowMs: readInt(env, 'RATE_LIMIT_WINDOW_MS', 60_000),
      max: readInt(env, 'RATE_LIMIT_MAX', 300),
    },
    authRateLimit: {
      windowMs: readInt(env, 'AUTH_RATE_LIMIT_WINDOW_MS', 15 * 60_000),
      max: readInt(env, 'AUTH_RATE_LIMIT_MAX', 20),
    },
    bodyLimit: readString(env, 'BODY_LIMIT', '100kb'),
    publicDir: readString(env, 'PUBLIC_DIR', 'public'),
    trustProxy: readBool(env, 'TRUST_PROXY', isProduction),
    logLevel: (readString(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'error' : 'info') as LogLevel),
    taxRegion: readString(env, 'TAX_REGION', 'US-CA'),
    currency,
    seedDemoData: readBool(env, 'SEED_DEMO_DATA', !isProduction),
    serverBanner: readString(env, 'SERVER_BANNER', 'bookstore-api (node/express)'),
  };
}

export const config: AppConfig = loadConfig();
