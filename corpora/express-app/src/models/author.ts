import { Entity, InMemoryRepository } from './base';

export interface Author extends Entity {
  name: string;
  sortName: string;
  bio?: string;
  birthYear?: number;
  nationality?: string;
  website?: string;
}

export function sortNameFor(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) {
    return name.trim();
  }
  const last = parts.pop() as string;
  return `${last}, ${parts.join(' ')}`;
}

export class AuthorRepository extends InMemoryRepository<Author> {
  protected readonly prefix = 'au';

  async findByName(name: string): Promise<Author | undefined> {
    const normalized = name.trim().toLowerCase();
    return this.findOne((author) => author.name.toLowerCase() === normalized);
  }

  async searchByName(fragment: string): Promise<Author[]> {
    const needle = fragment.trim().toLowerCase();
    const results = await this.find((author) => author.name.toLowerCase().includes(needle));
    return results.sort((a, b) => a.sortName.localeCompare(b.sortName));
  }
}
