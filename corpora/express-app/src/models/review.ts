import { Entity, InMemoryRepository } from './base';

export enum ReviewStatus {
  Pending = 'pending',
  Published = 'published',
  Rejected = 'rejected',
}

export interface Review extends Entity {
  bookId: string;
  customerId: string;
  rating: number;
  title: string;
  body: string;
  status: ReviewStatus;
  verifiedPurchase: boolean;
  moderatedBy?: string;
  rejectionReason?: string;
}

export interface RatingSummary {
  bookId: string;
  count: number;
  average: number | null;
  distribution: Record<1 | 2 | 3 | 4 | 5, number>;
}

export class ReviewRepository extends InMemoryRepository<Review> {
  protected readonly prefix = 'rv';

  async findByBook(bookId: string, status: ReviewStatus = ReviewStatus.Published): Promise<Review[]> {
    const reviews = await this.find((review) => review.bookId === bookId && review.status === status);
    return reviews.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  async findByCustomerAndBook(customerId: string, bookId: string): Promise<Review | undefined> {
    return this.findOne((review) => review.customerId === customerId && review.bookId === bookId);
  }

  async summarize(bookId: string): Promise<RatingSummary> {
    const published = await this.findByBook(bookId);
    const distribution: RatingSummary['distribution'] = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 };
    let sum = 0;
    for (const review of published) {
      distribution[review.rating as 1 | 2 | 3 | 4 | 5] += 1;
      sum += review.rating;
    }
    return {
      bookId,
      count: published.length,
      average: published.length > 0 ? Math.round((sum / published.length) * 10) / 10 : null,
      distribution,
    };
  }
}
