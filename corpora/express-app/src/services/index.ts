import { config } from '../config/env';
import { db, Database } from '../config/database';
import { AuthorService } from './authorService';
import { AuthService } from './authService';
import { BookService } from './bookService';
import { CartService } from './cartService';
import { CategoryService } from './categoryService';
import { CustomerService } from './customerService';
import { InventoryService } from './inventoryService';
import { LogMailer, Mailer, NotificationService } from './notificationService';
import { OrderService } from './orderService';
import { FakePaymentGateway, PaymentGateway, PaymentService } from './paymentService';
import { ReportService } from './reportService';
import { ReviewService } from './reviewService';

export interface Services {
  auth: AuthService;
  authors: AuthorService;
  books: BookService;
  carts: CartService;
  categories: CategoryService;
  customers: CustomerService;
  inventory: InventoryService;
  notifications: NotificationService;
  orders: OrderService;
  payments: PaymentService;
  reports: ReportService;
  reviews: ReviewService;
}

export interface ServiceOverrides {
  mailer?: Mailer;
  gateway?: PaymentGateway;
  taxRegion?: string;
}

/** Composition root: wires repositories into services. */
export function createServices(database: Database, overrides: ServiceOverrides = {}): Services {
  const gateway = overrides.gateway ?? new FakePaymentGateway(`${config.jwtSecret}:webhooks`);
  const notifications = new NotificationService(overrides.mailer ?? new LogMailer(), database.customers);
  const inventory = new InventoryService(database.inventory, database.books);
  const payments = new PaymentService(database.payments, gateway);
  const carts = new CartService(database.carts, database.books, inventory);

  return {
    auth: new AuthService(database.customers, {
      secret: config.jwtSecret,
      accessTtlSeconds: config.accessTokenTtlSeconds,
      refreshTtlSeconds: config.refreshTokenTtlSeconds,
    }),
    authors: new AuthorService(database.authors, database.books),
    books: new BookService(database.books, database.authors, database.categories),
    carts,
    categories: new CategoryService(database.categories, database.books),
    customers: new CustomerService(database.customers),
    inventory,
    notifications,
    orders: new OrderService(
      database.orders,
      database.customers,
      carts,
      inventory,
      payments,
      notifications,
      overrides.taxRegion ?? config.taxRegion,
    ),
    payments,
    reports: new ReportService(database.orders, database.books, database.inventory),
    reviews: new ReviewService(database.reviews, database.books, database.orders, notifications),
  };
}

export const services: Services = createServices(db);

export { AuthorService } from './authorService';
export { AuthService } from './authService';
export { BookService } from './bookService';
export { CartService } from './cartService';
export { CategoryService } from './categoryService';
export { CustomerService } from './customerService';
export { InventoryService, InsufficientStockError } from './inventoryService';
export { NotificationService, MemoryMailer, LogMailer } from './notificationService';
export { OrderService } from './orderService';
export { PaymentService, FakePaymentGateway } from './paymentService';
export { ReportService } from './reportService';
export { ReviewService } from './reviewService';
