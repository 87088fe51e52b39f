import request from 'supertest';
import booksRouter from '../../src/routes/books';
import { BookFormat } from '../../src/models/book';
import { adminHeader, authHeader, buildMockApp, staffHeader } from '../helpers/mock';
import { createAuthor, createBook, nextIsbn, resetAll } from '../helpers/fixtures';

const app = buildMockApp(booksRouter, { mountPath: '/api/books' });

beforeEach(() => {
  resetAll();
});

describe('GET /api/books', () => {
  it('lists active books with pagination metadata', async () => {
    await createBook(undefined, { title: 'B' });
    await createBook(undefined, { title: 'A' });

    const res = await request(app).get('/api/books?pageSize=1');

    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.body.data.map((b: { title: string }) => b.title)).toEqual(['A']);
    expect(res.body.meta).toMatchObject({ page: 1, pageSize: 1, totalPages: 2, hasNext: true });
  });

  it('filters by format', async () => {
    await createBook(undefined, { format: BookFormat.Ebook, title: 'Digital' });
    await createBook(undefined, { format: BookFormat.Hardcover, title: 'Paper' });

    const res = await request(app).get('/api/books').query({ format: 'ebook' });

    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].title).toBe('Digital');
  });

  it('hides inactive books', async () => {
    await createBook(undefined, { active: false });
    const res = await request(app).get('/api/books');
    expect(res.body.data).toHaveLength(0);
  });

  it('rejects an inverted price range with 422', async () => {
    const res = await request(app).get('/api/books?minPrice=500&maxPrice=100');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('sorts descending when the sort key is prefixed with "-"', async () => {
    await createBook(undefined, { title: 'Cheap', priceCents: 100 });
    await createBook(undefined, { title: 'Pricey', priceCents: 9_900 });
    const res = await request(app).get('/api/books?sort=-priceCents');
    expect(res.body.data[0].title).toBe('Pricey');
  });
});

describe('GET /api/books/:id', () => {
  it('returns the book with author names', async () => {
    const author = await createAuthor(undefined, 'Octavia E. Butler');
    const book = await createBook(undefined, { authorIds: [author.id], title: 'Kindred' });

    const res = await request(app).get(`/api/books/${book.id}`);

    expect(res.status).toBe(200);
    expect(res.body.data.authors).toEqual([{ id: author.id, name: 'Octavia E. Butler' }]);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });

  it('returns 404 for unknown ids', async () => {
    const res = await request(app).get('/api/books/bk_doesnotexist0000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('POST /api/books', () => {
  const body = async () => ({
    isbn: nextIsbn(),
    title: 'The Left Hand of Darkness',
    authorIds: [(await createAuthor()).id],
    format: 'paperback',
    priceCents: 1599,
  });

  it('requires authentication', async () => {
    const res = await request(app).post('/api/books').send(await body());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('forbids plain customers', async () => {
    const res = await request(app).post('/api/books').set(authHeader()).send(await body());
    expect(res.status).toBe(403);
  });

  it('creates the book for staff and sets Location', async () => {
    const res = await request(app).post('/api/books').set(staffHeader()).send(await body());
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/books/${res.body.data.id}`);
    expect(res.body.data.active).toBe(true);
  });

  it('rejects an ISBN with a bad checksum', async () => {
    const res = await request(app)
      .post('/api/books')
      .set(staffHeader())
      .send({ ...(await body()), isbn: '9780441013590' });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].path).toBe('isbn');
  });

  it('rejects a duplicate ISBN with 409', async () => {
    const existing = await createBook();
    const res = await request(app)
      .post('/api/books')
      .set(staffHeader())
      .send({ ...(await body()), isbn: existing.isbn });
    expect(res.status).toBe(409);
  });
});

describe('DELETE /api/books/:id', () => {
  it('is reserved for administrators', async () => {
    const book = await createBook();
    expect((await request(app).delete(`/api/books/${book.id}`).set(staffHeader())).status).toBe(403);
    expect((await request(app).delete(`/api/books/${book.id}`).set(adminHeader())).status).toBe(204);
  });
});
