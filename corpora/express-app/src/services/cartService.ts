import { Cart, CartRepository, MAX_CART_LINES, MAX_QUANTITY_PER_LINE } from '../models/cart';
import { BookRepository } from '../models/book';
import { BadRequestError, NotFoundError } from '../utils/errors';
import { sumCents } from '../utils/money';
import { InventoryService, InsufficientStockError } from './inventoryService';

export interface CartLineView {
  bookId: string;
  title: string;
  quantity: number;
  unitPriceCents: number;
  lineTotalCents: number;
  inStock: boolean;
}

export interface CartView {
  id: string;
  customerId: string;
  lines: CartLineView[];
  itemCount: number;
  subtotalCents: number;
  currency: string;
  couponCode?: string;
  warnings: string[];
}

export const KNOWN_COUPONS: Readonly<Record<string, number>> = {
  WELCOME10: 1000,
  READMORE: 500,
};

export class CartService {
  constructor(
    private readonly carts: CartRepository,
    private readonly books: BookRepository,
    private readonly inventory: InventoryService,
  ) {}

  async view(customerId: string): Promise<CartView> {
    const cart = await this.carts.getOrCreate(customerId);
    return this.render(cart);
  }

  async addItem(customerId: string, bookId: string, quantity = 1): Promise<CartView> {
    const book = await this.books.findById(bookId);
    if (!book || !book.active) {
      throw new NotFoundError('Book', bookId);
    }
    const cart = await this.carts.getOrCreate(customerId);
    const existing = cart.items.find((item) => item.bookId === bookId);
    const nextQuantity = (existing?.quantity ?? 0) + quantity;
    if (!existing && cart.items.length >= MAX_CART_LINES) {
      throw new BadRequestError(`A cart may hold at most ${MAX_CART_LINES} different titles`);
    }
    await this.assertQuantity(bookId, nextQuantity);
    const items = existing
      ? cart.items.map((item) => (item.bookId === bookId ? { ...item, quantity: nextQuantity } : item))
      : [...cart.items, { bookId, quantity, addedAt: new Date() }];
    return this.render((await this.carts.update(cart.id, { items })) as Cart);
  }

  async setQuantity(customerId: string, bookId: string, quantity: number): Promise<CartView> {
    if (quantity === 0) {
      return this.removeItem(customerId, bookId);
    }
    const cart = await this.carts.getOrCreate(customerId);
    if (!cart.items.some((item) => item.bookId === bookId)) {
      throw new NotFoundError('Cart item', bookId);
    }
    await this.assertQuantity(bookId, quantity);
    const items = cart.items.map((item) => (item.bookId === bookId ? { ...item, quantity } : item));
    return this.render((await this.carts.update(cart.id, { items })) as Cart);
  }

  async removeItem(customerId: string, bookId: string): Promise<CartView> {
    const cart = await this.carts.getOrCreate(customerId);
    const items = cart.items.filter((item) => item.bookId !== bookId);
    return this.render((await this.carts.update(cart.id, { items })) as Cart);
  }

  async applyCoupon(customerId: string, code: string): Promise<CartView> {
    const normalized = code.trim().toUpperCase();
    if (!(normalized in KNOWN_COUPONS)) {
      throw new BadRequestError(`Coupon ${normalized} is not valid`);
    }
    const cart = await this.carts.getOrCreate(customerId);
    return this.render((await this.carts.update(cart.id, { couponCode: normalized })) as Cart);
  }

  async clear(customerId: string): Promise<void> {
    const cart = await this.carts.findByCustomer(customerId);
    if (cart) {
      await this.carts.update(cart.id, { items: [], couponCode: undefined });
    }
  }

  couponDiscount(view: CartView): number {
    if (!view.couponCode) return 0;
    return Math.min(view.subtotalCents, KNOWN_COUPONS[view.couponCode] ?? 0);
  }

  private async assertQuantity(bookId: string, quantity: number): Promise<void> {
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY_PER_LINE) {
      throw new BadRequestError(`Quantity must be between 1 and ${MAX_QUANTITY_PER_LINE}`);
    }
    const availableQty = await this.inventory.availability(bookId);
    if (availableQty < quantity) {
      throw new InsufficientStockError(bookId, quantity, availableQty);
    }
  }

  private async render(cart: Cart): Promise<CartView> {
    const books = await this.books.findByIds(cart.items.map((item) => item.bookId));
    const byId = new Map(books.map((book) => [book.id, book]));
    const warnings: string[] = [];
    const lines: CartLineView[] = [];
    for (const item of cart.items) {
      const book = byId.get(item.bookId);
      if (!book || !book.active) {
        warnings.push(`Item ${item.bookId} is no longer available and was skipped`);
        continue;
      }
      const availableQty = await this.inventory.availability(book.id);
      lines.push({
        bookId: book.id,
        title: book.title,
        quantity: item.quantity,
        unitPriceCents: book.priceCents,
        lineTotalCents: book.priceCents * item.quantity,
        inStock: availableQty >= item.quantity,
      });
    }
    return {
      id: cart.id,
      customerId: cart.customerId,
      lines,
      itemCount: lines.reduce((sum, line) => sum + line.quantity, 0),
      subtotalCents: sumCents(lines.map((line) => line.lineTotalCents)),
      currency: books[0]?.currency ?? 'USD',
      couponCode: cart.couponCode,
      warnings,
    };
  }
}
