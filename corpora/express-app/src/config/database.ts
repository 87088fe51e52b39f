import {
  AuthorRepository,
  BookFormat,
  BookRepository,
  CartRepository,
  CategoryRepository,
  CustomerRepository,
  InventoryRepository,
  OrderRepository,
  PaymentRepository,
  ReviewRepository,
  Role,
  slugify,
  sortNameFor,
} from '../models';
import { hashPassword } from '../utils/password';
import { logger } from '../utils/logger';

export interface Database {
  books: BookRepository;
  authors: AuthorRepository;
  categories: CategoryRepository;
  customers: CustomerRepository;
  orders: OrderRepository;
  reviews: ReviewRepository;
  carts: CartRepository;
  payments: PaymentRepository;
  inventory: InventoryRepository;
}

export function createDatabase(): Database {
  return {
    books: new BookRepository(),
    authors: new AuthorRepository(),
    categories: new CategoryRepository(),
    customers: new CustomerRepository(),
    orders: new OrderRepository(),
    reviews: new ReviewRepository(),
    carts: new CartRepository(),
    payments: new PaymentRepository(),
    inventory: new InventoryRepository(),
  };
}

export function resetDatabase(db: Database): void {
  for (const repo of Object.values(db)) {
    repo.clear();
  }
}

interface SeedBook {
  isbn: string;
  title: string;
  author: string;
  category: string;
  format: BookFormat;
  priceCents: number;
  stock: number;
}

const SEED_BOOKS: SeedBook[] = [
  { isbn: '9780261103573', title: 'The Fellowship of the Ring', author: 'J. R. R. Tolkien', category: 'Fantasy', format: BookFormat.Paperback, priceCents: 1299, stock: 40 },
  { isbn: '9780547928227', title: 'The Hobbit', author: 'J. R. R. Tolkien', category: 'Fantasy', format: BookFormat.Hardcover, priceCents: 2499, stock: 12 },
  { isbn: '9780441013593', title: 'Dune', author: 'Frank Herbert', category: 'Science Fiction', format: BookFormat.Paperback, priceCents: 1099, stock: 55 },
  { isbn: '9780316769488', title: 'The Catcher in the Rye', author: 'J. D. Salinger', category: 'Classics', format: BookFormat.Paperback, priceCents: 999, stock: 3 },
  { isbn: '9780062316097', title: 'Sapiens', author: 'Yuval Noah Harari', category: 'History', format: BookFormat.Ebook, priceCents: 1499, stock: 0 },
  { isbn: '9780593135204', title: 'Project Hail Mary', author: 'Andy Weir', category: 'Science Fiction', format: BookFormat.Audiobook, priceCents: 2899, stock: 0 },
];

export async function seedDatabase(db: Database): Promise<void> {
  const log = logger.child({ component: 'seed' });
  const categoryIds = new Map<string, string>();
  const authorIds = new Map<string, string>();

  for (const [position, name] of ['Fantasy', 'Science Fiction', 'Classics', 'History'].entries()) {
    const category = await db.categories.create({ name, slug: slugify(name), position });
    categoryIds.set(name, category.id);
  }

  for (const seed of SEED_BOOKS) {
    let authorId = authorIds.get(seed.author);
    if (!authorId) {
      const author = await db.authors.create({ name: seed.author, sortName: sortNameFor(seed.author) });
      authorId = author.id;
      authorIds.set(seed.author, authorId);
    }
    const book = await db.books.create({
      isbn: seed.isbn,
      title: seed.title,
      authorIds: [authorId],
      categoryIds: [categoryIds.get(seed.category) as string],
      format: seed.format,
      priceCents: seed.priceCents,
      currency: 'USD',
      tags: [],
      active: true,
    });
    await db.inventory.create({
      bookId: book.id,
      warehouse: 'main',
      onHand: seed.stock,
      reserved: 0,
      reorderThreshold: 5,
      unitCostCents: Math.round(seed.priceCents * 0.45),
    });
  }

  await db.customers.create({
    email: 'admin@bookstore.test',
    name: 'Store Admin',
    passwordHash: await hashPassword('admin-password-1'),
    role: Role.Admin,
    addresses: [],
    marketingOptIn: false,
    disabled: false,
  });

  log.info('seeded demo data', { books: SEED_BOOKS.length, authors: authorIds.size, categories: categoryIds.size });
}

export const db: Database = createDatabase();
