import { allocate, formatMoney, percentOf, roundHalfEven, shippingFor, sumCents, taxFor } from '../../src/utils/money';

describe('money helpers', () => {
  it('rounds half to even', () => {
    expect(roundHalfEven(2.5)).toBe(2);
    expect(roundHalfEven(3.5)).toBe(4);
    expect(roundHalfEven(2.6)).toBe(3);
  });

  it('computes basis-point percentages', () => {
    expect(percentOf(10_000, 725)).toBe(725);
    expect(percentOf(2_400, 725)).toBe(174);
  });

  it('looks up tax by region with country fallback', () => {
    expect(taxFor(10_000, 'US-CA')).toBe(725);
    expect(taxFor(10_000, 'US-TX')).toBe(0);
    expect(taxFor(10_000, 'DE-BY')).toBe(700);
  });

  it('allocates without losing cents', () => {
    const shares = allocate(100, [1, 1, 1]);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(100);
    expect(shares).toEqual([34, 33, 33]);
  });

  it('refuses fractional cents when summing', () => {
    expect(() => sumCents([100, 0.5])).toThrow(TypeError);
  });

  it('charges flat shipping only below the threshold and only for physical items', () => {
    expect(shippingFor(1_000, true)).toBe(499);
    expect(shippingFor(5_000, true)).toBe(0);
    expect(shippingFor(1_000, false)).toBe(0);
  });

  it('formats currency amounts', () => {
    expect(formatMoney(123_456, 'USD')).toBe('$1,234.56');
  });
});
