import { Author, AuthorRepository, sortNameFor } from '../models/author';
import { Book, BookRepository } from '../models/book';
import { ConflictError, NotFoundError } from '../utils/errors';
import { paginate, Page, PaginatedResult } from '../utils/pagination';

export interface AuthorInput {
  name: string;
  bio?: string;
  birthYear?: number;
  nationality?: string;
  website?: string;
}

export class AuthorService {
  constructor(
    private readonly repo: AuthorRepository,
    private readonly books: BookRepository,
  ) {}

  async list(search: string | undefined, page: Page): Promise<PaginatedResult<Author>> {
    const authors = search ? await this.repo.searchByName(search) : await this.repo.findAll();
    authors.sort((a, b) => a.sortName.localeCompare(b.sortName));
    return paginate(authors, page);
  }

  async get(id: string): Promise<Author> {
    const author = await this.repo.findById(id);
    if (!author) {
      throw new NotFoundError('Author', id);
    }
    return author;
  }

  async create(input: AuthorInput): Promise<Author> {
    if (await this.repo.findByName(input.name)) {
      throw new ConflictError(`Author "${input.name}" already exists`);
    }
    return this.repo.create({ ...input, sortName: sortNameFor(input.name) });
  }

  async update(id: string, input: Partial<AuthorInput>): Promise<Author> {
    await this.get(id);
    const patch = input.name ? { ...input, sortName: sortNameFor(input.name) } : input;
    const updated = await this.repo.update(id, patch);
    if (!updated) {
      throw new NotFoundError('Author', id);
    }
    return updated;
  }

  async remove(id: string): Promise<void> {
    await this.get(id);
    const books = await this.books.findByAuthor(id);
    if (books.length > 0) {
      throw new ConflictError(`Author ${id} still has ${books.length} book(s); reassign them first`);
    }
    await this.repo.delete(id);
  }

  async booksBy(id: string, includeInactive = false): Promise<Book[]> {
    await this.get(id);
    const books = await this.books.findByAuthor(id);
    return books
      .filter((book) => includeInactive || book.active)
      .sort((a, b) => (b.publishedAt?.getTime() ?? 0) - (a.publishedAt?.getTime() ?? 0));
  }
}
