import { validate, validated, requireJson } from '../../src/middleware/validation';
import { ValidationError } from '../../src/utils/errors';
import { v } from '../../src/utils/validators';
import { mockNext, mockRequest, mockResponse } from '../helpers/mock';

const bodySchema = v.object({
  title: v.string().min(2),
  quantity: v.number().int().min(1).default(1),
});

describe('validate()', () => {
  it('replaces req.body with the parsed value', () => {
    const req = mockRequest({ method: 'POST', body: { title: '  Dune  ' } });
    const next = mockNext();

    validate(bodySchema)(req, mockResponse(), next);

    expect(next).toHaveBeenCalledWith();
    expect(req.body).toEqual({ title: 'Dune', quantity: 1 });
  });

  it('reports every issue with its path', () => {
    const next = mockNext();
    validate(bodySchema)(mockRequest({ body: { title: 'x', quantity: 0, extra: true } }), mockResponse(), next);

    const err = next.mock.calls[0][0] as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details?.map((d) => d.path).sort()).toEqual(['extra', 'quantity', 'title']);
  });

  it('stores validated query values in res.locals', () => {
    const schema = v.object({ page: v.number().coerce().int().positive() });
    const res = mockResponse();
    validate(schema, 'query')(mockRequest({ query: { page: '3' } }), res, mockNext());
    expect(validated<{ page: number }>(res, 'query')).toEqual({ page: 3 });
  });

  it('throws a helpful error if validated() is used without validate()', () => {
    expect(() => validated(mockResponse(), 'params')).toThrow(/did you forget validate/);
  });
});

describe('requireJson', () => {
  it('rejects a form-encoded POST body', () => {
    const req = mockRequest({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '12' },
    });
    const next = mockNext();
    requireJson(req, mockResponse(), next);
    expect(next).toHaveBeenCalledWith(expect.any(ValidationError));
  });

  it('ignores GET requests', () => {
    const next = mockNext();
    requireJson(mockRequest({ method: 'GET' }), mockResponse(), next);
    expect(next).toHaveBeenCalledWith();
  });
});
