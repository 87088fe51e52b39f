import { Entity, InMemoryRepository } from './base';

export interface Category extends Entity {
  name: string;
  slug: string;
  parentId?: string;
  position: number;
}

export interface CategoryNode extends Category {
  children: CategoryNode[];
}

export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function buildTree(categories: readonly Category[]): CategoryNode[] {
  const nodes = new Map<string, CategoryNode>();
  for (const category of categories) {
    nodes.set(category.id, { ...category, children: [] });
  }
  const roots: CategoryNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    if (parent) {
      parent.children.push(node);
    } else {
      roots.push(node);
    }
  }
  const sortNodes = (list: CategoryNode[]): void => {
    list.sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
    list.forEach((child) => sortNodes(child.children));
  };
  sortNodes(roots);
  return roots;
}

export class CategoryRepository extends InMemoryRepository<Category> {
  protected readonly prefix = 'cat';

  async findBySlug(slug: string): Promise<Category | undefined> {
    return this.findOne((category) => category.slug === slug);
  }

  async childrenOf(parentId: string): Promise<Category[]> {
    return this.find((category) => category.parentId === parentId);
  }

  async ancestorsOf(id: string): Promise<Category[]> {
    const chain: Category[] = [];
    let current = await this.findById(id);
    const seen = new Set<string>();
    while (current?.parentId && !seen.has(current.parentId)) {
      seen.add(current.parentId);
      current = await this.findById(current.parentId);
      if (current) chain.unshift(current);
    }
    return chain;
  }
}
