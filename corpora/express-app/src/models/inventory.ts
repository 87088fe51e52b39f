import { Entity, InMemoryRepository } from './base';

export interface StockLevel extends Entity {
  bookId: string;
  warehouse: string;
  onHand: number;
  reserved: number;
  reorderThreshold: number;
  unitCostCents: number;
}

export interface StockMovement {
  bookId: string;
  delta: number;
  reason: 'restock' | 'reservation' | 'release' | 'sale' | 'adjustment';
  reference?: string;
  at: Date;
}

export function available(level: Pick<StockLevel, 'onHand' | 'reserved'>): number {
  return Math.max(0, level.onHand - level.reserved);
}

export function needsReorder(level: StockLevel): boolean {
  return available(level) <= level.reorderThreshold;
}

export class InventoryRepository extends InMemoryRepository<StockLevel> {
  protected readonly prefix = 'stk';
  private readonly movements: StockMovement[] = [];

  async findByBook(bookId: string): Promise<StockLevel | undefined> {
    return this.findOne((level) => level.bookId === bookId);
  }

  async recordMovement(movement: StockMovement): Promise<void> {
    this.movements.push({ ...movement });
  }

  async movementsFor(bookId: string, limit = 50): Promise<StockMovement[]> {
    return this.movements
      .filter((movement) => movement.bookId === bookId)
      .slice(-limit)
      .reverse();
  }
}
