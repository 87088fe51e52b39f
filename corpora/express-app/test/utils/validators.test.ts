import { v } from '../../src/utils/validators';

describe('validators', () => {
  it('trims strings by default and enforces length', () => {
    expect(v.string().min(2).parse('  ab  ')).toEqual({ ok: true, value: 'ab' });
    expect(v.string().min(3).parse('ab').ok).toBe(false);
  });

  it('coerces numeric query strings only when asked', () => {
    expect(v.number().parse('5').ok).toBe(false);
    expect(v.number().coerce().parse('5')).toEqual({ ok: true, value: 5 });
  });

  it('validates enums', () => {
    const schema = v.enum(['a', 'b'] as const);
    expect(schema.parse('a').ok).toBe(true);
    expect(schema.parse('c')).toEqual({ ok: false, issues: [{ path: '$', message: 'must be one of: a, b' }] });
  });

  it('collects nested issues with dotted and indexed paths', () => {
    const schema = v.object({ lines: v.array(v.object({ qty: v.number().int().min(1) })) });
    const result = schema.parse({ lines: [{ qty: 1 }, { qty: 0 }] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues[0].path).toBe('lines[1].qty');
    }
  });

  it('applies defaults and optional fields', () => {
    const schema = v.object({ size: v.number().default(10), note: v.string().optional() });
    expect(schema.parse({})).toEqual({ ok: true, value: { size: 10 } });
  });

  it('checks prefixed ids', () => {
    expect(v.id('bk').parse('bk_0123456789abcdef').ok).toBe(true);
    expect(v.id('bk').parse('au_0123456789abcdef').ok).toBe(false);
  });
});
