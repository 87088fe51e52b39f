/**
 * A deliberately small schema/validation toolkit. It covers what the API
 * needs (strings, numbers, enums, arrays, objects, coercion of query strings)
 * without pulling in a runtime dependency.
 */
import type { ErrorDetail } from './errors';

export type Issue = ErrorDetail;

export type Result<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

export interface Schema<T> {
  parse(value: unknown, path?: string): Result<T>;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const fail = <T>(path: string, message: string): Result<T> => ({ ok: false, issues: [{ path: path || '$', message }] });

export abstract class BaseSchema<T> implements Schema<T> {
  abstract parse(value: unknown, path?: string): Result<T>;

  optional(): BaseSchema<T | undefined> {
    return new OptionalSchema(this);
  }

  default(fallback: T): BaseSchema<T> {
    return new DefaultSchema(this, fallback);
  }

  refine(check: (value: T) => boolean, message: string): BaseSchema<T> {
    return new RefinedSchema(this, check, message);
  }
}

class OptionalSchema<T> extends BaseSchema<T | undefined> {
  constructor(private readonly inner: Schema<T>) {
    super();
  }

  parse(value: unknown, path = ''): Result<T | undefined> {
    if (value === undefined || value === null || value === '') {
      return ok(undefined);
    }
    return this.inner.parse(value, path);
  }
}

class DefaultSchema<T> extends BaseSchema<T> {
  constructor(private readonly inner: Schema<T>, private readonly fallback: T) {
    super();
  }

  parse(value: unknown, path = ''): Result<T> {
    if (value === undefined || value === null || value === '') {
      return ok(this.fallback);
    }
    return this.inner.parse(value, path);
  }
}

class RefinedSchema<T> extends BaseSchema<T> {
  constructor(
    private readonly inner: Schema<T>,
    private readonly check: (value: T) => boolean,
    private readonly message: string,
  ) {
    super();
  }

  parse(value: unknown, path = ''): Result<T> {
    const result = this.inner.parse(value, path);
    if (result.ok && !this.check(result.value)) {
      return fail(path, this.message);
    }
    return result;
  }
}

export class StringSchema extends BaseSchema<string> {
  private minLength?: number;
  private maxLength?: number;
  private pattern?: { re: RegExp; message: string };
  private shouldTrim = true;

  min(length: number): this {
    this.minLength = length;
    return this;
  }

  max(length: number): this {
    this.maxLength = length;
    return this;
  }

  matches(re: RegExp, message = 'has an invalid format'): this {
    this.pattern = { re, message };
    return this;
  }

  email(): this {
    return this.matches(/^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/, 'must be a valid email address');
  }

  raw(): this {
    this.shouldTrim = false;
    return this;
  }

  parse(value: unknown, path = ''): Result<string> {
    if (typeof value !== 'string') {
      return fail(path, 'must be a string');
    }
    const str = this.shouldTrim ? value.trim() : value;
    if (this.minLength !== undefined && str.length < this.minLength) {
      return fail(path, `must be at least ${this.minLength} characters`);
    }
    if (this.maxLength !== undefined && str.length > this.maxLength) {
      return fail(path, `must be at most ${this.maxLength} characters`);
    }
    if (this.pattern && !this.pattern.re.test(str)) {
      return fail(path, this.pattern.message);
    }
    return ok(str);
  }
}

export class NumberSchema extends BaseSchema<number> {
  private minValue?: number;
  private maxValue?: number;
  private integer = false;
  private coerceStrings = false;

  int(): this {
    this.integer = true;
    return this;
  }

  min(value: number): this {
    this.minValue = value;
    return this;
  }

  max(value: number): this {
    this.maxValue = value;
    return this;
  }

  positive(): this {
    return this.min(1);
  }

  /** Accept numeric strings, e.g. values coming from `req.query`. */
  coerce(): this {
    this.coerceStrings = true;
    return this;
  }

  parse(value: unknown, path = ''): Result<number> {
    let num = value;
    if (this.coerceStrings && typeof value === 'string' && value.trim() !== '') {
      num = Number(value);
    }
    if (typeof num !== 'number' || Number.isNaN(num) || !Number.isFinite(num)) {
      return fail(path, 'must be a number');
    }
    if (this.integer && !Number.isInteger(num)) {
      return fail(path, 'must be an integer');
    }
    if (this.minValue !== undefined && num < this.minValue) {
      return fail(path, `must be >= ${this.minValue}`);
    }
    if (this.maxValue !== undefined && num > this.maxValue) {
      return fail(path, `must be <= ${this.maxValue}`);
    }
    return ok(num);
  }
}

export class BooleanSchema extends BaseSchema<boolean> {
  parse(value: unknown, path = ''): Result<boolean> {
    if (typeof value === 'boolean') return ok(value);
    if (value === 'true' || value === '1') return ok(true);
    if (value === 'false' || value === '0') return ok(false);
    return fail(path, 'must be a boolean');
  }
}

export class EnumSchema<T extends string> extends BaseSchema<T> {
  constructor(private readonly values: readonly T[]) {
    super();
  }

  parse(value: unknown, path = ''): Result<T> {
    if (typeof value === 'string' && (this.values as readonly string[]).includes(value)) {
      return ok(value as T);
    }
    return fail(path, `must be one of: ${this.values.join(', ')}`);
  }
}

export class DateSchema extends BaseSchema<Date> {
  parse(value: unknown, path = ''): Result<Date> {
    const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
    if (!date || Number.isNaN(date.getTime())) {
      return fail(path, 'must be an ISO-8601 date');
    }
    return ok(date);
  }
}

export class ArraySchema<T> extends BaseSchema<T[]> {
  private minItems = 0;
  private maxItems = Number.POSITIVE_INFINITY;

  constructor(private readonly item: Schema<T>) {
    super();
  }

  min(count: number): this {
    this.minItems = count;
    return this;
  }

  max(count: number): this {
    this.maxItems = count;
    return this;
  }

  parse(value: unknown, path = ''): Result<T[]> {
    if (!Array.isArray(value)) {
      return fail(path, 'must be an array');
    }
    if (value.length < this.minItems) {
      return fail(path, `must contain at least ${this.minItems} item(s)`);
    }
    if (value.length > this.maxItems) {
      return fail(path, `must contain at most ${this.maxItems} item(s)`);
    }
    const out: T[] = [];
    const issues: Issue[] = [];
    value.forEach((entry, index) => {
      const result = this.item.parse(entry, `${path}[${index}]`);
      if (result.ok) {
        out.push(result.value);
      } else {
        issues.push(...result.issues);
      }
    });
    return issues.length > 0 ? { ok: false, issues } : ok(out);
  }
}

type Shape = Record<string, Schema<unknown>>;
type InferShape<S extends Shape> = { [K in keyof S]: Infer<S[K]> };

export class ObjectSchema<S extends Shape> extends BaseSchema<InferShape<S>> {
  private allowUnknown = false;

  constructor(private readonly shape: S) {
    super();
  }

  passthrough(): this {
    this.allowUnknown = true;
    return this;
  }

  partial(): ObjectSchema<{ [K in keyof S]: BaseSchema<Infer<S[K]> | undefined> }> {
    const next: Record<string, BaseSchema<unknown>> = {};
    for (const [key, schema] of Object.entries(this.shape)) {
      next[key] = new OptionalSchema(schema);
    }
    return new ObjectSchema(next) as unknown as ObjectSchema<{ [K in keyof S]: BaseSchema<Infer<S[K]> | undefined> }>;
  }

  parse(value: unknown, path = ''): Result<InferShape<S>> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail(path, 'must be an object');
    }
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const issues: Issue[] = [];
    for (const [key, schema] of Object.entries(this.shape)) {
      const childPath = path ? `${path}.${key}` : key;
      const result = schema.parse(input[key], childPath);
      if (result.ok) {
        if (result.value !== undefined) {
          out[key] = result.value;
        }
      } else {
        issues.push(...result.issues);
      }
    }
    if (!this.allowUnknown) {
      for (const key of Object.keys(input)) {
        if (!(key in this.shape)) {
          issues.push({ path: path ? `${path}.${key}` : key, message: 'is not allowed' });
        }
      }
    }
    return issues.length > 0 ? { ok: false, issues } : ok(out as InferShape<S>);
  }
}

export const v = {
  string: () => new StringSchema(),
  number: () => new NumberSchema(),
  boolean: () => new BooleanSchema(),
  date: () => new DateSchema(),
  enum: <T extends string>(values: readonly T[]) => new EnumSchema<T>(values),
  array: <T>(item: Schema<T>) => new ArraySchema<T>(item),
  object: <S extends Shape>(shape: S) => new ObjectSchema<S>(shape),
  id: (prefix: string) =>
    new StringSchema().matches(new RegExp(`^${prefix}_[0-9a-z]{8,32}$`), `must be a ${prefix}_ identifier`),
};
