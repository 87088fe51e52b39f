export const SUPPORTED_CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
export type Currency = (typeof SUPPORTED_CURRENCIES)[number];

/** Tax rates for printed books, in basis points (1/100th of a percent). */
export const BOOK_TAX_RATES_BPS: Readonly<Record<string, number>> = {
  US: 0,
  'US-CA': 725,
  'US-NY': 400,
  'US-WA': 650,
  GB: 0,
  DE: 700,
  FR: 550,
};

export function isCurrency(value: unknown): value is Currency {
  return typeof value === 'string' && (SUPPORTED_CURRENCIES as readonly string[]).includes(value);
}

export function formatMoney(cents: number, currency: Currency = 'USD', locale = 'en-US'): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100);
}

/** Banker's rounding keeps aggregate tax totals unbiased. */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (Math.abs(diff - 0.5) < 1e-9) {
    return floor % 2 === 0 ? floor : floor + 1;
  }
  return Math.round(value);
}

export function percentOf(cents: number, basisPoints: number): number {
  return roundHalfEven((cents * basisPoints) / 10_000);
}

export function sumCents(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) {
    if (!Number.isInteger(value)) {
      throw new TypeError(`Expected integer cents, received ${value}`);
    }
    total += value;
  }
  return total;
}

export function taxFor(subtotalCents: number, region: string): number {
  const rate = BOOK_TAX_RATES_BPS[region] ?? BOOK_TAX_RATES_BPS[region.split('-')[0]] ?? 0;
  return percentOf(subtotalCents, rate);
}

/**
 * Splits an amount across ratios without losing a cent; remainders go to the
 * largest ratios first. Used for partial refunds across order lines.
 */
export function allocate(totalCents: number, ratios: readonly number[]): number[] {
  const ratioSum = ratios.reduce((sum, r) => sum + r, 0);
  if (ratioSum <= 0) {
    return ratios.map(() => 0);
  }
  const shares = ratios.map((ratio) => Math.floor((totalCents * ratio) / ratioSum));
  let remainder = totalCents - shares.reduce((sum, s) => sum + s, 0);
  const order = ratios.map((ratio, index) => ({ ratio, index })).sort((a, b) => b.ratio - a.ratio);
  for (let i = 0; remainder > 0; i = (i + 1) % order.length) {
    shares[order[i].index] += 1;
    remainder -= 1;
  }
  return shares;
}

export const FREE_SHIPPING_THRESHOLD_CENTS = 3_500;
export const FLAT_SHIPPING_CENTS = 499;

export function shippingFor(subtotalCents: number, hasPhysicalItems: boolean): number {
  if (!hasPhysicalItems || subtotalCents >= FREE_SHIPPING_THRESHOLD_CENTS) {
    return 0;
  }
  return FLAT_SHIPPING_CENTS;
}
