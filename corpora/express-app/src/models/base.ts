import { generateId } from '../utils/ids';

export interface Entity {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

export type NewEntity<T extends Entity> = Omit<T, 'id' | 'createdAt' | 'updatedAt'>;
export type EntityPatch<T extends Entity> = Partial<NewEntity<T>>;

export interface Repository<T extends Entity> {
  findById(id: string): Promise<T | undefined>;
  findAll(filter?: Partial<T>): Promise<T[]>;
  find(predicate: (item: T) => boolean): Promise<T[]>;
  findOne(predicate: (item: T) => boolean): Promise<T | undefined>;
  create(data: NewEntity<T>): Promise<T>;
  update(id: string, patch: EntityPatch<T>): Promise<T | undefined>;
  delete(id: string): Promise<boolean>;
  count(filter?: Partial<T>): Promise<number>;
}

function matches<T>(item: T, filter: Partial<T>): boolean {
  return (Object.keys(filter) as (keyof T)[]).every((key) => item[key] === filter[key]);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Process-local repository backed by a Map. Values are cloned on the way in
 * and out so callers cannot mutate stored state by accident.
 */
export abstract class InMemoryRepository<T extends Entity> implements Repository<T> {
  protected readonly items = new Map<string, T>();
  protected abstract readonly prefix: string;

  async findById(id: string): Promise<T | undefined> {
    const item = this.items.get(id);
    return item ? clone(item) : undefined;
  }

  async findAll(filter?: Partial<T>): Promise<T[]> {
    const all = [...this.items.values()];
    return (filter ? all.filter((item) => matches(item, filter)) : all).map(clone);
  }

  async find(predicate: (item: T) => boolean): Promise<T[]> {
    return [...this.items.values()].filter(predicate).map(clone);
  }

  async findOne(predicate: (item: T) => boolean): Promise<T | undefined> {
    for (const item of this.items.values()) {
      if (predicate(item)) {
        return clone(item);
      }
    }
    return undefined;
  }

  async create(data: NewEntity<T>): Promise<T> {
    const now = new Date();
    const entity = { ...clone(data), id: generateId(this.prefix), createdAt: now, updatedAt: now } as T;
    this.items.set(entity.id, entity);
    return clone(entity);
  }

  async update(id: string, patch: EntityPatch<T>): Promise<T | undefined> {
    const existing = this.items.get(id);
    if (!existing) {
      return undefined;
    }
    const updated = { ...existing, ...clone(patch), id, createdAt: existing.createdAt, updatedAt: new Date() } as T;
    this.items.set(id, updated);
    return clone(updated);
  }

  async delete(id: string): Promise<boolean> {
    return this.items.delete(id);
  }

  async count(filter?: Partial<T>): Promise<number> {
    if (!filter) {
      return this.items.size;
    }
    let total = 0;
    for (const item of this.items.values()) {
      if (matches(item, filter)) total += 1;
    }
    return total;
  }

  /** Test helper: wipes every stored entity. */
  clear(): void {
    this.items.clear();
  }
}
