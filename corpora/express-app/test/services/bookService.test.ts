import { createDatabase, Database } from '../../src/config/database';
import { BookService } from '../../src/services/bookService';
import { BookFormat } from '../../src/models/book';
import { ConflictError, NotFoundError, ValidationError } from '../../src/utils/errors';
import { createAuthor, createBook, nextIsbn } from '../helpers/fixtures';

describe('BookService', () => {
  let database: Database;
  let service: BookService;

  beforeEach(() => {
    database = createDatabase();
    service = new BookService(database.books, database.authors, database.categories);
  });

  describe('ISBN helpers', () => {
    it('normalizes hyphens and spaces', () => {
      expect(BookService.normalizeIsbn('978-0-441 01359-3')).toBe('9780441013593');
    });

    it('validates ISBN-13 checksums', () => {
      expect(BookService.isValidIsbn13('9780441013593')).toBe(true);
      expect(BookService.isValidIsbn13('9780441013594')).toBe(false);
      expect(BookService.isValidIsbn13('978044101359')).toBe(false);
    });
  });

  it('creates a book with normalized tags', async () => {
    const author = await createAuthor(database);
    const book = await service.create({
      isbn: nextIsbn(),
      title: 'The Dispossessed',
      authorIds: [author.id, author.id],
      format: BookFormat.Paperback,
      priceCents: 1400,
      tags: [' Utopia', 'utopia', 'SF '],
    });
    expect(book.authorIds).toEqual([author.id]);
    expect(book.tags).toEqual(['sf', 'utopia']);
  });

  it('rejects unknown authors', async () => {
    await expect(
      service.create({ isbn: nextIsbn(), title: 'Ghost', authorIds: ['au_missing00000000'], format: BookFormat.Ebook, priceCents: 100 }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('rejects duplicate ISBNs', async () => {
    const existing = await createBook(database);
    await expect(
      service.create({ isbn: existing.isbn, title: 'Copy', authorIds: existing.authorIds, format: BookFormat.Ebook, priceCents: 100 }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('lists with sorting and pagination', async () => {
    await createBook(database, { title: 'Zebra', priceCents: 100 });
    await createBook(database, { title: 'Aardvark', priceCents: 300 });
    await createBook(database, { title: 'Mongoose', priceCents: 200 });

    const page = await service.list({}, { page: 1, pageSize: 2 }, { field: 'priceCents', direction: 'desc' });

    expect(page.items.map((b) => b.title)).toEqual(['Aardvark', 'Mongoose']);
    expect(page.total).toBe(3);
    expect(page.hasNext).toBe(true);
  });

  it('ranks related books by shared authors first', async () => {
    const author = await createAuthor(database, 'N. K. Jemisin');
    const seed = await createBook(database, { authorIds: [author.id], tags: ['fantasy'] });
    const sameAuthor = await createBook(database, { authorIds: [author.id], tags: [] });
    const sameTag = await createBook(database, { tags: ['fantasy'], categoryIds: seed.categoryIds });

    const related = await service.related(seed.id);

    expect(related[0].id).toBe(sameAuthor.id);
    expect(related.map((b) => b.id)).not.toContain(sameTag.id);
  });

  it('throws NotFoundError when removing a missing book', async () => {
    await expect(service.remove('bk_missing000000000')).rejects.toBeInstanceOf(NotFoundError);
  });
});
