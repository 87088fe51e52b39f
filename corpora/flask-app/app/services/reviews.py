from ..extensions import db
from ..models import Review
from . import Conflict, Forbidden, NotFound
from .books import book_service


class ReviewService:
    def submit(self, user, book_id, data):
        book = book_service.get(book_id)
        if Review.query.filter_by(book_id=book.id, author_id=user.id).first() is not None:
            raise Conflict("you already reviewed this book")
        review = Review(book_id=book.id, author_id=user.id, rating=data["rating"], title=data["title"], body=data["body"])
        db.session.add(review)
        db.session.commit()
        return review

    def published_for(self, book_id):
        return (
            Review.query.filter_by(book_id=book_id, published=True)
            .order_by(Review.created_at.desc(), Review.id.desc())
            .all()
        )

    def summary(self, book_id):
        rows = Review.query.filter_by(book_id=book_id, published=True).with_entities(Review.rating).all()
        ratings = [r.rating for r in rows]
        histogram = {star: ratings.count(star) for star in range(1, 6)}
        average = round(sum(ratings) / len(ratings), 2) if ratings else None
        return {"count": len(ratings), "average": average, "histogram": histogram}

    def moderate(self, review_id, publish):
        review = db.session.get(Review, review_id)
        if review is None:
            raise NotFound(f"review {review_id} not found")
        review.published = bool(publish)
        db.session.commit()
        return review

    def pending(self):
        return Review.query.filter_by(published=False).order_by(Review.created_at.asc()).all()

    def delete(self, user, review_id):
        review = db.session.get(Review, review_id)
        if review is None:
            raise NotFound(f"review {review_id} not found")
        if review.author_id != user.id and not user.is_staff:
            raise Forbidden("you can only delete your own reviews")
        db.session.delete(review)
        db.session.commit()


review_service = ReviewService()
