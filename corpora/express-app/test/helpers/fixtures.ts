import { Database, db as sharedDb, resetDatabase } from '../../src/config/database';
import {
  Address,
  Author,
  Book,
  BookFormat,
  Customer,
  Role,
  StockLevel,
  sortNameFor,
} from '../../src/models';
import { hashPassword } from '../../src/utils/password';

export const TEST_PASSWORD = 'correct-horse-42';

export const TEST_ADDRESS: Address = {
  label: 'home',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'CA',
  postalCode: '95014',
  country: 'US',
};

let isbnSequence = 0;
let emailSequence = 0;

/** Returns a fresh, checksum-valid ISBN-13 in the 979-0 range. */
export function nextIsbn(): string {
  isbnSequence += 1;
  const body = `9790${String(isbnSequence).padStart(8, '0')}`;
  const sum = body.split('').reduce((acc, digit, index) => acc + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

export function resetAll(database: Database = sharedDb): void {
  resetDatabase(database);
}

export async function createAuthor(database: Database = sharedDb, name = 'Ursula K. Le Guin'): Promise<Author> {
  return database.authors.create({ name, sortName: sortNameFor(name) });
}

export async function createBook(database: Database = sharedDb, overrides: Partial<Book> = {}): Promise<Book> {
  const authorIds = overrides.authorIds ?? [(await createAuthor(database)).id];
  return database.books.create({
    isbn: nextIsbn(),
    title: 'A Wizard of Earthsea',
    authorIds,
    categoryIds: [],
    format: BookFormat.Paperback,
    priceCents: 1200,
    currency: 'USD',
    tags: ['fantasy'],
    active: true,
    ...overrides,
  });
}

export async function stockBook(database: Database, bookId: string, onHand: number): Promise<StockLevel> {
  return database.inventory.create({
    bookId,
    warehouse: 'main',
    onHand,
    reserved: 0,
    reorderThreshold: 2,
    unitCostCents: 500,
  });
}

export async function createCustomer(database: Database = sharedDb, overrides: Partial<Customer> = {}): Promise<Customer> {
  emailSequence += 1;
  return database.customers.create({
    email: `reader${emailSequence}@example.test`,
    name: `Reader ${emailSequence}`,
    passwordHash: await hashPassword(TEST_PASSWORD),
    role: Role.Customer,
    addresses: [TEST_ADDRESS],
    defaultAddressIndex: 0,
    marketingOptIn: false,
    disabled: false,
    ...overrides,
  });
}
