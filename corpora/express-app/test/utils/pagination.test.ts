import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, paginate, parsePagination, parseSort, sortBy } from '../../src/utils/pagination';
import { BadRequestError } from '../../src/utils/errors';

describe('parsePagination', () => {
  it('falls back to defaults', () => {
    expect(parsePagination({})).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE });
  });

  it('caps the page size', () => {
    expect(parsePagination({ pageSize: '5000' }).pageSize).toBe(MAX_PAGE_SIZE);
  });

  it('accepts "limit" as an alias for pageSize', () => {
    expect(parsePagination({ limit: '7' }).pageSize).toBe(7);
  });

  it('rejects non-positive values', () => {
    expect(() => parsePagination({ page: '0' })).toThrow(BadRequestError);
    expect(() => parsePagination({ page: 'two' })).toThrow(BadRequestError);
  });
});

describe('paginate', () => {
  it('slices and reports navigation flags', () => {
    const result = paginate([1, 2, 3, 4, 5], { page: 2, pageSize: 2 });
    expect(result).toEqual({ items: [3, 4], page: 2, pageSize: 2, total: 5, totalPages: 3, hasNext: true, hasPrevious: true });
  });

  it('reports one page for empty input', () => {
    expect(paginate([], { page: 1, pageSize: 10 }).totalPages).toBe(1);
  });
});

describe('sorting', () => {
  type Row = { name: string; n?: number };

  it('parses "-field" as descending', () => {
    expect(parseSort<Row>('-name', ['name'], { field: 'name', direction: 'asc' })).toEqual({ field: 'name', direction: 'desc' });
  });

  it('rejects fields outside the allow-list', () => {
    expect(() => parseSort<Row>('n', ['name'], { field: 'name', direction: 'asc' })).toThrow(/Cannot sort/);
  });

  it('sorts numerically-aware and keeps undefined last', () => {
    const rows: Row[] = [{ name: 'item10' }, { name: 'item2', n: 1 }, { name: 'item1', n: 2 }];
    expect(sortBy(rows, { field: 'name', direction: 'asc' }).map((r) => r.name)).toEqual(['item1', 'item2', 'item10']);
    expect(sortBy(rows, { field: 'n', direction: 'asc' }).map((r) => r.n)).toEqual([1, 2, undefined]);
  });
});
