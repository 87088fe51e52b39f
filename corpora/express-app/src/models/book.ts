import { Entity, InMemoryRepository } from './base';

export enum BookFormat {
  Hardcover = 'hardcover',
  Paperback = 'paperback',
  Ebook = 'ebook',
  Audiobook = 'audiobook',
}

export const PHYSICAL_FORMATS: ReadonlySet<BookFormat> = new Set([BookFormat.Hardcover, BookFormat.Paperback]);

export interface Book extends Entity {
  isbn: string;
  title: string;
  subtitle?: string;
  authorIds: string[];
  categoryIds: string[];
  format: BookFormat;
  priceCents: number;
  currency: string;
  publishedAt?: Date;
  pageCount?: number;
  description?: string;
  tags: string[];
  active: boolean;
}

export interface BookSearchQuery {
  text?: string;
  authorId?: string;
  categoryId?: string;
  format?: BookFormat;
  minPriceCents?: number;
  maxPriceCents?: number;
  tag?: string;
  includeInactive?: boolean;
}

export function isPhysical(book: Pick<Book, 'format'>): boolean {
  return PHYSICAL_FORMATS.has(book.format);
}

export class BookRepository extends InMemoryRepository<Book> {
  protected readonly prefix = 'bk';

  async findByIsbn(isbn: string): Promise<Book | undefined> {
    return this.findOne((book) => book.isbn === isbn);
  }

  async findByAuthor(authorId: string): Promise<Book[]> {
    return this.find((book) => book.authorIds.includes(authorId));
  }

  async findByIds(ids: readonly string[]): Promise<Book[]> {
    const wanted = new Set(ids);
    return this.find((book) => wanted.has(book.id));
  }

  async search(query: BookSearchQuery): Promise<Book[]> {
    const needle = query.text?.toLowerCase();
    return this.find((book) => {
      if (!query.includeInactive && !book.active) return false;
      if (query.authorId && !book.authorIds.includes(query.authorId)) return false;
      if (query.categoryId && !book.categoryIds.includes(query.categoryId)) return false;
      if (query.format && book.format !== query.format) return false;
      if (query.minPriceCents !== undefined && book.priceCents < query.minPriceCents) return false;
      if (query.maxPriceCents !== undefined && book.priceCents > query.maxPriceCents) return false;
      if (query.tag && !book.tags.includes(query.tag)) return false;
      if (needle) {
        const haystack = [book.title, book.subtitle ?? '', book.isbn, ...book.tags].join(' ').toLowerCase();
        if (!haystack.includes(needle)) return false;
      }
      return true;
    });
  }
}
