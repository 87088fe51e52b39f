import { RatingSummary, Review, ReviewRepository, ReviewStatus } from '../models/review';
import { BookRepository } from '../models/book';
import { OrderRepository, OrderStatus } from '../models/order';
import { ConflictError, ForbiddenError, NotFoundError } from '../utils/errors';
import { paginate, Page, PaginatedResult } from '../utils/pagination';
import type { AuthUser } from '../types';
import { Role } from '../models/customer';
import { NotificationService } from './notificationService';

export interface ReviewInput {
  rating: number;
  title: string;
  body: string;
}

const BANNED_WORDS = ['spoiler-link', 'buy-followers', 'casino'];

export class ReviewService {
  constructor(
    private readonly reviews: ReviewRepository,
    private readonly books: BookRepository,
    private readonly orders: OrderRepository,
    private readonly notifications: NotificationService,
  ) {}

  async listForBook(bookId: string, page: Page): Promise<PaginatedResult<Review>> {
    await this.assertBook(bookId);
    return paginate(await this.reviews.findByBook(bookId), page);
  }

  async summary(bookId: string): Promise<RatingSummary> {
    await this.assertBook(bookId);
    return this.reviews.summarize(bookId);
  }

  async submit(author: AuthUser, bookId: string, input: ReviewInput): Promise<Review> {
    await this.assertBook(bookId);
    if (await this.reviews.findByCustomerAndBook(author.id, bookId)) {
      throw new ConflictError('You have already reviewed this book');
    }
    const purchases = await this.orders.find(
      (order) =>
        order.customerId === author.id &&
        (order.status === OrderStatus.Delivered || order.status === OrderStatus.Shipped) &&
        order.lines.some((line) => line.bookId === bookId),
    );
    const flagged = BANNED_WORDS.some((word) => `${input.title} ${input.body}`.toLowerCase().includes(word));
    const review = await this.reviews.create({
      bookId,
      customerId: author.id,
      rating: input.rating,
      title: input.title,
      body: input.body,
      verifiedPurchase: purchases.length > 0,
      // Verified purchasers are auto-published unless the text trips the filter.
      status: purchases.length > 0 && !flagged ? ReviewStatus.Published : ReviewStatus.Pending,
    });
    await this.notifications.reviewSubmitted(review);
    return review;
  }

  async moderationQueue(page: Page): Promise<PaginatedResult<Review>> {
    const pending = await this.reviews.find((review) => review.status === ReviewStatus.Pending);
    pending.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    return paginate(pending, page);
  }

  async moderate(moderator: AuthUser, id: string, decision: 'publish' | 'reject', reason?: string): Promise<Review> {
    const review = await this.load(id);
    if (review.status !== ReviewStatus.Pending) {
      throw new ConflictError(`Review ${id} has already been moderated`);
    }
    return (await this.reviews.update(id, {
      status: decision === 'publish' ? ReviewStatus.Published : ReviewStatus.Rejected,
      moderatedBy: moderator.id,
      rejectionReason: decision === 'reject' ? reason ?? 'guidelines' : undefined,
    })) as Review;
  }

  async remove(actor: AuthUser, id: string): Promise<void> {
    const review = await this.load(id);
    if (review.customerId !== actor.id && actor.role === Role.Customer) {
      throw new ForbiddenError('You can only delete your own reviews');
    }
    await this.reviews.delete(id);
  }

  private async load(id: string): Promise<Review> {
    const review = await this.reviews.findById(id);
    if (!review) {
      throw new NotFoundError('Review', id);
    }
    return review;
  }

  private async assertBook(bookId: string): Promise<void> {
    if (!(await this.books.findById(bookId))) {
      throw new NotFoundError('Book', bookId);
    }
  }
}
