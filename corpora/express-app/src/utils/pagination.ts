import { BadRequestError } from './errors';

export interface Page {
  page: number;
  pageSize: number;
}

export interface PaginatedResult<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export type SortDirection = 'asc' | 'desc';

export interface SortSpec<T> {
  field: keyof T;
  direction: SortDirection;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

function toPositiveInt(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === null || raw === '') {
    return fallback;
  }
  const value = typeof raw === 'number' ? raw : Number(String(raw));
  if (!Number.isInteger(value) || value < 1) {
    throw new BadRequestError(`Query parameter "${name}" must be a positive integer`);
  }
  return value;
}

export function parsePagination(query: Record<string, unknown>): Page {
  const page = toPositiveInt(query.page, 'page', 1);
  const pageSize = Math.min(toPositiveInt(query.pageSize ?? query.limit, 'pageSize', DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  return { page, pageSize };
}

export function paginate<T>(items: readonly T[], { page, pageSize }: Page): PaginatedResult<T> {
  const total = items.length;
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  const start = (page - 1) * pageSize;
  return {
    items: items.slice(start, start + pageSize),
    page,
    pageSize,
    total,
    totalPages,
    hasNext: page < totalPages,
    hasPrevious: page > 1,
  };
}

export function mapPage<T, U>(result: PaginatedResult<T>, fn: (item: T) => U): PaginatedResult<U> {
  return { ...result, items: result.items.map(fn) };
}

export function parseSort<T>(raw: unknown, allowed: readonly (keyof T)[], fallback: SortSpec<T>): SortSpec<T> {
  if (typeof raw !== 'string' || raw.length === 0) {
    return fallback;
  }
  const direction: SortDirection = raw.startsWith('-') ? 'desc' : 'asc';
  const field = raw.replace(/^[-+]/, '') as keyof T;
  if (!allowed.includes(field)) {
    throw new BadRequestError(`Cannot sort by "${String(field)}"; allowed: ${allowed.map(String).join(', ')}`);
  }
  return { field, direction };
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { sensitivity: 'base', numeric: true });
}

export function sortBy<T>(items: readonly T[], spec: SortSpec<T>): T[] {
  const factor = spec.direction === 'asc' ? 1 : -1;
  return [...items].sort((left, right) => factor * compareValues(left[spec.field], right[spec.field]));
}
