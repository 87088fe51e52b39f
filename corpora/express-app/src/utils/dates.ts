import { BadRequestError } from './errors';

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface DateRange {
  from: Date;
  to: Date;
}

export function startOfDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

export function endOfDay(date: Date): Date {
  return new Date(startOfDay(date).getTime() + DAY_MS - 1);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

export function toIsoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function parseIsoDate(raw: string, name = 'date'): Date {
  if (!ISO_DATE.test(raw)) {
    throw new BadRequestError(`"${name}" must be formatted as YYYY-MM-DD`);
  }
  const parsed = new Date(`${raw}T00:00:00.000Z`);
  if (Number.isNaN(parsed.getTime())) {
    throw new BadRequestError(`"${name}" is not a valid calendar date`);
  }
  return parsed;
}

export function parseDateRange(
  from: string | undefined,
  to: string | undefined,
  maxDays = 366,
  now: Date = new Date(),
): DateRange {
  const end = to ? endOfDay(parseIsoDate(to, 'to')) : endOfDay(now);
  const start = from ? parseIsoDate(from, 'from') : startOfDay(addDays(end, -29));
  if (start.getTime() > end.getTime()) {
    throw new BadRequestError('"from" must be before "to"');
  }
  if ((end.getTime() - start.getTime()) / DAY_MS > maxDays) {
    throw new BadRequestError(`Date range may not exceed ${maxDays} days`);
  }
  return { from: start, to: end };
}

export function eachDay(range: DateRange): Date[] {
  const days: Date[] = [];
  for (let day = startOfDay(range.from); day.getTime() <= range.to.getTime(); day = addDays(day, 1)) {
    days.push(day);
  }
  return days;
}

export function isWithin(date: Date, range: DateRange): boolean {
  const time = date.getTime();
  return time >= range.from.getTime() && time <= range.to.getTime();
}
