import { available, InventoryRepository, needsReorder, StockLevel, StockMovement } from '../models/inventory';
import { BookRepository, isPhysical } from '../models/book';
import { BadRequestError, ConflictError, NotFoundError } from '../utils/errors';
import { logger } from '../utils/logger';

export interface StockLine {
  bookId: string;
  quantity: number;
}

export interface LowStockEntry {
  bookId: string;
  title: string;
  available: number;
  reorderThreshold: number;
}

/** Digital formats are never out of stock. */
export const UNLIMITED = Number.POSITIVE_INFINITY;

export class InsufficientStockError extends ConflictError {
  constructor(public readonly bookId: string, public readonly requested: number, public readonly availableQty: number) {
    super(`Only ${availableQty} unit(s) of ${bookId} available, ${requested} requested`);
  }
}

export class InventoryService {
  private readonly log = logger.child({ component: 'InventoryService' });

  constructor(
    private readonly stock: InventoryRepository,
    private readonly books: BookRepository,
  ) {}

  async levelFor(bookId: string): Promise<StockLevel> {
    const level = await this.stock.findByBook(bookId);
    if (!level) {
      throw new NotFoundError('Stock level for book', bookId);
    }
    return level;
  }

  async availability(bookId: string): Promise<number> {
    const book = await this.books.findById(bookId);
    if (!book) {
      throw new NotFoundError('Book', bookId);
    }
    if (!isPhysical(book)) {
      return UNLIMITED;
    }
    const level = await this.stock.findByBook(bookId);
    return level ? available(level) : 0;
  }

  async reserve(lines: readonly StockLine[], reference: string): Promise<void> {
    const tracked = await this.trackedLines(lines);
    for (const { line, level } of tracked) {
      if (available(level) < line.quantity) {
        throw new InsufficientStockError(line.bookId, line.quantity, available(level));
      }
    }
    for (const { line, level } of tracked) {
      await this.stock.update(level.id, { reserved: level.reserved + line.quantity });
      await this.move(line.bookId, -line.quantity, 'reservation', reference);
    }
  }

  async release(lines: readonly StockLine[], reference: string): Promise<void> {
    for (const { line, level } of await this.trackedLines(lines)) {
      await this.stock.update(level.id, { reserved: Math.max(0, level.reserved - line.quantity) });
      await this.move(line.bookId, line.quantity, 'release', reference);
    }
  }

  async commit(lines: readonly StockLine[], reference: string): Promise<StockLevel[]> {
    const lowAfterCommit: StockLevel[] = [];
    for (const { line, level } of await this.trackedLines(lines)) {
      const updated = (await this.stock.update(level.id, {
        onHand: level.onHand - line.quantity,
        reserved: Math.max(0, level.reserved - line.quantity),
      })) as StockLevel;
      await this.move(line.bookId, -line.quantity, 'sale', reference);
      if (needsReorder(updated)) {
        lowAfterCommit.push(updated);
      }
    }
    return lowAfterCommit;
  }

  async restock(bookId: string, quantity: number, unitCostCents?: number): Promise<StockLevel> {
    if (!Number.isInteger(quantity) || quantity <= 0) {
      throw new BadRequestError('Restock quantity must be a positive integer');
    }
    const existing = await this.stock.findByBook(bookId);
    let level: StockLevel;
    if (existing) {
      level = (await this.stock.update(existing.id, {
        onHand: existing.onHand + quantity,
        ...(unitCostCents !== undefined ? { unitCostCents } : {}),
      })) as StockLevel;
    } else {
      if (!(await this.books.findById(bookId))) {
        throw new NotFoundError('Book', bookId);
      }
      level = await this.stock.create({
        bookId,
        warehouse: 'main',
        onHand: quantity,
        reserved: 0,
        reorderThreshold: 5,
        unitCostCents: unitCostCents ?? 0,
      });
    }
    await this.move(bookId, quantity, 'restock');
    this.log.info('restocked', { bookId, quantity, onHand: level.onHand });
    return level;
  }

  async adjust(bookId: string, onHand: number, note: string): Promise<StockLevel> {
    const level = await this.levelFor(bookId);
    if (onHand < level.reserved) {
      throw new ConflictError(`Cannot set on-hand below the ${level.reserved} reserved unit(s)`);
    }
    const updated = (await this.stock.update(level.id, { onHand })) as StockLevel;
    await this.move(bookId, onHand - level.onHand, 'adjustment', note);
    return updated;
  }

  async setThreshold(bookId: string, reorderThreshold: number): Promise<StockLevel> {
    const level = await this.levelFor(bookId);
    return (await this.stock.update(level.id, { reorderThreshold })) as StockLevel;
  }

  async lowStock(): Promise<LowStockEntry[]> {
    const levels = await this.stock.find(needsReorder);
    const entries: LowStockEntry[] = [];
    for (const level of levels) {
      const book = await this.books.findById(level.bookId);
      if (!book || !book.active || !isPhysical(book)) continue;
      entries.push({
        bookId: level.bookId,
        title: book.title,
        available: available(level),
        reorderThreshold: level.reorderThreshold,
      });
    }
    return entries.sort((a, b) => a.available - b.available);
  }

  async history(bookId: string, limit?: number): Promise<StockMovement[]> {
    return this.stock.movementsFor(bookId, limit);
  }

  private async trackedLines(lines: readonly StockLine[]): Promise<Array<{ line: StockLine; level: StockLevel }>> {
    const result: Array<{ line: StockLine; level: StockLevel }> = [];
    for (const line of lines) {
      const book = await this.books.findById(line.bookId);
      if (!book) {
        throw new NotFoundError('Book', line.bookId);
      }
      if (!isPhysical(book)) continue;
      const level = await this.stock.findByBook(line.bookId);
      if (!level) {
        throw new InsufficientStockError(line.bookId, line.quantity, 0);
      }
      result.push({ line, level });
    }
    return result;
  }

  private async move(bookId: string, delta: number, reason: StockMovement['reason'], reference?: string): Promise<void> {
    await this.stock.recordMovement({ bookId, delta, reason, reference, at: new Date() });
  }
}
