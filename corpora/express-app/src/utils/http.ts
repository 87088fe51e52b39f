import type { Response } from 'express';
import type { PaginatedResult } from './pagination';

export interface Envelope<T> {
  data: T;
  meta?: Record<string, unknown>;
}

export function sendOk<T>(res: Response, data: T, meta?: Record<string, unknown>): void {
  const body: Envelope<T> = meta ? { data, meta } : { data };
  res.status(200).json(body);
}

export function sendCreated<T>(res: Response, data: T, location?: string): void {
  if (location) {
    res.location(location);
  }
  res.status(201).json({ data });
}

export function sendAccepted<T>(res: Response, data: T): void {
  res.status(202).json({ data });
}

export function sendNoContent(res: Response): void {
  res.status(204).end();
}

export function sendPaginated<T>(res: Response, result: PaginatedResult<T>): void {
  res.setHeader('X-Total-Count', String(result.total));
  res.status(200).json({
    data: result.items,
    meta: {
      page: result.page,
      pageSize: result.pageSize,
      total: result.total,
      totalPages: result.totalPages,
      hasNext: result.hasNext,
      hasPrevious: result.hasPrevious,
    },
  });
}

export function setCacheControl(res: Response, maxAgeSeconds: number, visibility: 'public' | 'private' = 'public'): void {
  if (maxAgeSeconds <= 0) {
    res.setHeader('Cache-Control', 'no-store');
    return;
  }
  res.setHeader('Cache-Control', `${visibility}, max-age=${maxAgeSeconds}`);
}

export function sendCsv(res: Response, filename: string, rows: ReadonlyArray<ReadonlyArray<string | number>>): void {
  const escape = (cell: string | number): string => {
    const text = String(cell);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.status(200).send(rows.map((row) => row.map(escape).join(',')).join('\n'));
}
