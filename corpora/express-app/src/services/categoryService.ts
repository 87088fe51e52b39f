import { buildTree, Category, CategoryNode, CategoryRepository, slugify } from '../models/category';
import { BookRepository } from '../models/book';
import { BadRequestError, ConflictError, NotFoundError } from '../utils/errors';

export interface CategoryInput {
  name: string;
  parentId?: string;
  position?: number;
}

export class CategoryService {
  constructor(
    private readonly repo: CategoryRepository,
    private readonly books: BookRepository,
  ) {}

  async tree(): Promise<CategoryNode[]> {
    return buildTree(await this.repo.findAll());
  }

  async getBySlug(slug: string): Promise<Category & { breadcrumbs: Category[] }> {
    const category = await this.repo.findBySlug(slug);
    if (!category) {
      throw new NotFoundError('Category', slug);
    }
    return { ...category, breadcrumbs: await this.repo.ancestorsOf(category.id) };
  }

  async create(input: CategoryInput): Promise<Category> {
    const slug = slugify(input.name);
    if (!slug) {
      throw new BadRequestError('Category name must contain letters or digits');
    }
    if (await this.repo.findBySlug(slug)) {
      throw new ConflictError(`Category "${slug}" already exists`);
    }
    if (input.parentId && !(await this.repo.findById(input.parentId))) {
      throw new NotFoundError('Parent category', input.parentId);
    }
    const siblings = await this.repo.find((c) => c.parentId === input.parentId);
    return this.repo.create({
      name: input.name,
      slug,
      parentId: input.parentId,
      position: input.position ?? siblings.length,
    });
  }

  async update(id: string, input: Partial<CategoryInput>): Promise<Category> {
    const existing = await this.repo.findById(id);
    if (!existing) {
      throw new NotFoundError('Category', id);
    }
    if (input.parentId) {
      if (input.parentId === id) {
        throw new BadRequestError('A category cannot be its own parent');
      }
      const ancestors = await this.repo.ancestorsOf(input.parentId);
      if (ancestors.some((ancestor) => ancestor.id === id)) {
        throw new BadRequestError('Moving the category there would create a cycle');
      }
    }
    const patch = input.name ? { ...input, slug: slugify(input.name) } : input;
    return (await this.repo.update(id, patch)) as Category;
  }

  async remove(id: string): Promise<void> {
    const children = await this.repo.childrenOf(id);
    if (children.length > 0) {
      throw new ConflictError('Remove or move child categories first');
    }
    const inUse = await this.books.find((book) => book.categoryIds.includes(id));
    if (inUse.length > 0) {
      throw new ConflictError(`Category is used by ${inUse.length} book(s)`);
    }
    if (!(await this.repo.delete(id))) {
      throw new NotFoundError('Category', id);
    }
  }
}
