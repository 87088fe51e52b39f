import { randomBytes } from 'crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const ID_PATTERN = /^([a-z]{2,4})_([0-9a-z]{8,32})$/;

/**
 * Generates a short, URL-safe, prefixed identifier such as `bk_4f9x0c2m1q8z7a6b`.
 * The prefix makes ids self-describing in logs and support tickets.
 */
export function generateId(prefix: string, length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[bytes[i] % ALPHABET.length];
  }
  return `${prefix}_${out}`;
}

export function isId(value: unknown, prefix?: string): value is string {
  if (typeof value !== 'string') {
    return false;
  }
  const match = ID_PATTERN.exec(value);
  if (!match) {
    return false;
  }
  return prefix === undefined || match[1] === prefix;
}

export function idPrefix(id: string): string | undefined {
  const match = ID_PATTERN.exec(id);
  return match ? match[1] : undefined;
}

export function generateRequestId(): string {
  return randomBytes(8).toString('hex');
}
