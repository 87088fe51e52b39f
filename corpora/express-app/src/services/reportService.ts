import { OrderRepository, OrderStatus, lineTotal } from '../models/order';
import { BookRepository } from '../models/book';
import { available, InventoryRepository } from '../models/inventory';
import { DateRange, eachDay, isWithin, toIsoDate } from '../utils/dates';
import { TtlCache } from '../utils/cache';
import { sumCents } from '../utils/money';

export interface DailySales {
  date: string;
  orders: number;
  units: number;
  revenueCents: number;
}

export interface TopSeller {
  bookId: string;
  title: string;
  units: number;
  revenueCents: number;
}

export interface InventoryValuation {
  titles: number;
  units: number;
  costCents: number;
  retailCents: number;
}

const REVENUE_STATUSES = new Set([OrderStatus.Paid, OrderStatus.Shipped, OrderStatus.Delivered]);

export class ReportService {
  private readonly cache = new TtlCache<string, unknown>(60_000, 200);

  constructor(
    private readonly orders: OrderRepository,
    private readonly books: BookRepository,
    private readonly inventory: InventoryRepository,
  ) {}

  async salesByDay(range: DateRange): Promise<DailySales[]> {
    const key = `sales:${range.from.toISOString()}:${range.to.toISOString()}`;
    return this.cache.getOrCompute(key, async () => {
      const orders = await this.revenueOrders(range);
      const byDay = new Map<string, DailySales>(
        eachDay(range).map((day) => [toIsoDate(day), { date: toIsoDate(day), orders: 0, units: 0, revenueCents: 0 }]),
      );
      for (const order of orders) {
        const bucket = byDay.get(toIsoDate(order.createdAt));
        if (!bucket) continue;
        bucket.orders += 1;
        bucket.units += order.lines.reduce((sum, line) => sum + line.quantity, 0);
        bucket.revenueCents += order.subtotalCents;
      }
      return [...byDay.values()];
    }) as Promise<DailySales[]>;
  }

  async topSellers(range: DateRange, limit = 10): Promise<TopSeller[]> {
    const totals = new Map<string, TopSeller>();
    for (const order of await this.revenueOrders(range)) {
      for (const line of order.lines) {
        const entry = totals.get(line.bookId) ?? { bookId: line.bookId, title: line.title, units: 0, revenueCents: 0 };
        entry.units += line.quantity;
        entry.revenueCents += lineTotal(line);
        totals.set(line.bookId, entry);
      }
    }
    return [...totals.values()].sort((a, b) => b.units - a.units || b.revenueCents - a.revenueCents).slice(0, limit);
  }

  async inventoryValuation(): Promise<InventoryValuation> {
    const levels = await this.inventory.findAll();
    const books = await this.books.findByIds(levels.map((level) => level.bookId));
    const priceById = new Map(books.map((book) => [book.id, book.priceCents]));
    return {
      titles: levels.length,
      units: levels.reduce((sum, level) => sum + level.onHand, 0),
      costCents: sumCents(levels.map((level) => level.onHand * level.unitCostCents)),
      retailCents: sumCents(levels.map((level) => available(level) * (priceById.get(level.bookId) ?? 0))),
    };
  }

  async statusBreakdown(range: DateRange): Promise<Record<OrderStatus, number>> {
    const breakdown = Object.fromEntries(Object.values(OrderStatus).map((s) => [s, 0])) as Record<OrderStatus, number>;
    const orders = await this.orders.findCreatedBetween(range.from, range.to);
    for (const order of orders) {
      breakdown[order.status] += 1;
    }
    return breakdown;
  }

  invalidate(): void {
    this.cache.invalidate();
  }

  private async revenueOrders(range: DateRange) {
    const orders = await this.orders.findCreatedBetween(range.from, range.to);
    return orders.filter((order) => REVENUE_STATUSES.has(order.status) && isWithin(order.createdAt, range));
  }
}
