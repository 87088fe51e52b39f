import { Entity, InMemoryRepository } from './base';

export interface CartItem {
  bookId: string;
  quantity: number;
  addedAt: Date;
}

export interface Cart extends Entity {
  customerId: string;
  items: CartItem[];
  couponCode?: string;
}

export const MAX_CART_LINES = 50;
export const MAX_QUANTITY_PER_LINE = 20;

export class CartRepository extends InMemoryRepository<Cart> {
  protected readonly prefix = 'crt';

  async findByCustomer(customerId: string): Promise<Cart | undefined> {
    return this.findOne((cart) => cart.customerId === customerId);
  }

  async getOrCreate(customerId: string): Promise<Cart> {
    const existing = await this.findByCustomer(customerId);
    if (existing) {
      return existing;
    }
    return this.create({ customerId, items: [] });
  }

  async findStale(olderThan: Date): Promise<Cart[]> {
    return this.find((cart) => cart.items.length > 0 && cart.updatedAt < olderThan);
  }
}
