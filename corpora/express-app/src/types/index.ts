import type { Role } from '../models/customer';

/** The authenticated principal attached to a request by the auth middleware. */
export interface AuthUser {
  id: string;
  email: string;
  role: Role;
}

export type Maybe<T> = T | null | undefined;

export type DeepReadonly<T> = {
  readonly [K in keyof T]: T[K] extends object ? DeepReadonly<T[K]> : T[K];
};

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

export function fixedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) };
}
