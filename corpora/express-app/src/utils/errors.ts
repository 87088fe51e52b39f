export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: ErrorDetail[];
  };
}

/**
 * Base class for every error that is allowed to reach the client.
 * Anything that is not an HttpError is treated as a 500 by the error handler.
 */
export class HttpError extends Error {
  public readonly status: number;
  public readonly code: string;
  public readonly details?: ErrorDetail[];
  public readonly expose: boolean;

  constructor(status: number, message: string, code = 'http_error', details?: ErrorDetail[]) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
    this.expose = status < 500;
    Object.setPrototypeOf(this, new.target.prototype);
  }

  toJSON(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.expose ? this.message : 'Internal Server Error',
        ...(this.details && this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

export class BadRequestError extends HttpError {
  constructor(message = 'Bad Request', details?: ErrorDetail[]) {
    super(400, message, 'bad_request', details);
  }
}

export class ValidationError extends HttpError {
  constructor(details: ErrorDetail[], message = 'Request validation failed') {
    super(422, message, 'validation_failed', details);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Authentication required') {
    super(401, message, 'unauthorized');
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'You do not have permission to perform this action') {
    super(403, message, 'forbidden');
  }
}

export class NotFoundError extends HttpError {
  public readonly resource: string;

  constructor(resource: string, id?: string) {
    super(404, id ? `${resource} ${id} was not found` : `${resource} was not found`, 'not_found');
    this.resource = resource;
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message, 'conflict');
  }
}

export class PaymentFailedError extends HttpError {
  constructor(message: string, public readonly providerCode?: string) {
    super(402, message, 'payment_failed');
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(public readonly retryAfterSeconds: number) {
    super(429, 'Too many requests, please slow down', 'rate_limited');
  }
}

export function isHttpError(err: unknown): err is HttpError {
  return err instanceof HttpError;
}

export function assertFound<T>(value: T | undefined | null, resource: string, id?: string): T {
  if (value === undefined || value === null) {
    throw new NotFoundError(resource, id);
  }
  return value;
}
