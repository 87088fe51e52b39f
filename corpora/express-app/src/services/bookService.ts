import { Book, BookFormat, BookRepository, BookSearchQuery } from '../models/book';
import { AuthorRepository } from '../models/author';
import { CategoryRepository } from '../models/category';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../utils/errors';
import { paginate, Page, PaginatedResult, SortSpec, sortBy } from '../utils/pagination';
import { logger } from '../utils/logger';

export interface CreateBookInput {
  isbn: string;
  title: string;
  subtitle?: string;
  authorIds: string[];
  categoryIds?: string[];
  format: BookFormat;
  priceCents: number;
  currency?: string;
  publishedAt?: Date;
  pageCount?: number;
  description?: string;
  tags?: string[];
}

export type UpdateBookInput = Partial<CreateBookInput> & { active?: boolean };

export interface BookWithAuthors extends Book {
  authors: Array<{ id: string; name: string }>;
}

export class BookService {
  private readonly log = logger.child({ component: 'BookService' });

  constructor(
    private readonly repo: BookRepository,
    private readonly authors: AuthorRepository,
    private readonly categories: CategoryRepository,
  ) {}

  static normalizeIsbn(raw: string): string {
    return raw.replace(/[\s-]/g, '').toUpperCase();
  }

  static isValidIsbn13(isbn: string): boolean {
    if (!/^\d{13}$/.test(isbn)) {
      return false;
    }
    const digits = isbn.split('').map(Number);
    const checksum = digits.slice(0, 12).reduce((sum, digit, index) => sum + digit * (index % 2 === 0 ? 1 : 3), 0);
    return (10 - (checksum % 10)) % 10 === digits[12];
  }

  async list(query: BookSearchQuery, page: Page, sort: SortSpec<Book>): Promise<PaginatedResult<Book>> {
    const matches = await this.repo.search(query);
    return paginate(sortBy(matches, sort), page);
  }

  async get(id: string): Promise<Book> {
    const book = await this.repo.findById(id);
    if (!book) {
      throw new NotFoundError('Book', id);
    }
    return book;
  }

  async getWithAuthors(id: string): Promise<BookWithAuthors> {
    const book = await this.get(id);
    const authors = await Promise.all(book.authorIds.map((authorId) => this.authors.findById(authorId)));
    return {
      ...book,
      authors: authors.filter((a): a is NonNullable<typeof a> => Boolean(a)).map((a) => ({ id: a.id, name: a.name })),
    };
  }

  async getByIsbn(raw: string): Promise<Book> {
    const isbn = BookService.normalizeIsbn(raw);
    const book = await this.repo.findByIsbn(isbn);
    if (!book) {
      throw new NotFoundError('Book with ISBN', isbn);
    }
    return book;
  }

  async create(input: CreateBookInput): Promise<Book> {
    const isbn = BookService.normalizeIsbn(input.isbn);
    if (!BookService.isValidIsbn13(isbn)) {
      throw new ValidationError([{ path: 'isbn', message: 'is not a valid ISBN-13' }]);
    }
    if (await this.repo.findByIsbn(isbn)) {
      throw new ConflictError(`A book with ISBN ${isbn} already exists`);
    }
    await this.assertAuthorsExist(input.authorIds);
    await this.assertCategoriesExist(input.categoryIds ?? []);

    const book = await this.repo.create({
      isbn,
      title: input.title,
      subtitle: input.subtitle,
      authorIds: [...new Set(input.authorIds)],
      categoryIds: [...new Set(input.categoryIds ?? [])],
      format: input.format,
      priceCents: input.priceCents,
      currency: input.currency ?? 'USD',
      publishedAt: input.publishedAt,
      pageCount: input.pageCount,
      description: input.description,
      tags: normalizeTags(input.tags ?? []),
      active: true,
    });
    this.log.info('book created', { bookId: book.id, isbn });
    return book;
  }

  async update(id: string, input: UpdateBookInput): Promise<Book> {
    const existing = await this.get(id);
    if (input.isbn !== undefined) {
      const isbn = BookService.normalizeIsbn(input.isbn);
      if (isbn !== existing.isbn) {
        if (!BookService.isValidIsbn13(isbn)) {
          throw new ValidationError([{ path: 'isbn', message: 'is not a valid ISBN-13' }]);
        }
        const clash = await this.repo.findByIsbn(isbn);
        if (clash && clash.id !== id) {
          throw new ConflictError(`A book with ISBN ${isbn} already exists`);
        }
      }
      input = { ...input, isbn };
    }
    if (input.authorIds) {
      if (input.authorIds.length === 0) {
        throw new BadRequestError('A book needs at least one author');
      }
      await this.assertAuthorsExist(input.authorIds);
    }
    if (input.categoryIds) {
      await this.assertCategoriesExist(input.categoryIds);
    }
    const updated = await this.repo.update(id, {
      ...input,
      ...(input.tags ? { tags: normalizeTags(input.tags) } : {}),
    });
    if (!updated) {
      throw new NotFoundError('Book', id);
    }
    return updated;
  }

  async setActive(id: string, active: boolean): Promise<Book> {
    return this.update(id, { active });
  }

  async remove(id: string): Promise<void> {
    const removed = await this.repo.delete(id);
    if (!removed) {
      throw new NotFoundError('Book', id);
    }
    this.log.info('book deleted', { bookId: id });
  }

  async related(id: string, limit = 5): Promise<Book[]> {
    const book = await this.get(id);
    const candidates = await this.repo.find(
      (other) =>
        other.id !== book.id &&
        other.active &&
        (other.authorIds.some((a) => book.authorIds.includes(a)) || other.categoryIds.some((c) => book.categoryIds.includes(c))),
    );
    const score = (other: Book): number =>
      other.authorIds.filter((a) => book.authorIds.includes(a)).length * 3 +
      other.categoryIds.filter((c) => book.categoryIds.includes(c)).length +
      other.tags.filter((t) => book.tags.includes(t)).length;
    return candidates.sort((a, b) => score(b) - score(a)).slice(0, limit);
  }

  private async assertAuthorsExist(ids: readonly string[]): Promise<void> {
    const missing: string[] = [];
    for (const authorId of ids) {
      if (!(await this.authors.findById(authorId))) {
        missing.push(authorId);
      }
    }
    if (missing.length > 0) {
      throw new ValidationError(missing.map((authorId) => ({ path: 'authorIds', message: `unknown author ${authorId}` })));
    }
  }

  private async assertCategoriesExist(ids: readonly string[]): Promise<void> {
    for (const categoryId of ids) {
      if (!(await this.categories.findById(categoryId))) {
        throw new ValidationError([{ path: 'categoryIds', message: `unknown category ${categoryId}` }]);
      }
    }
  }
}

function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter(Boolean))].sort();
}
