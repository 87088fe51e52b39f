import { Customer, CustomerRepository, PublicCustomer, Role, toPublicCustomer } from '../models/customer';
import { ConflictError, UnauthorizedError, ValidationError } from '../utils/errors';
import { hashPassword, passwordProblems, verifyPassword } from '../utils/password';
import { signToken, verifyToken, TokenError } from '../utils/token';
import { logger } from '../utils/logger';

export interface AuthOptions {
  secret: string;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

export interface AuthTokens {
  tokenType: 'Bearer';
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export interface RegisterInput {
  email: string;
  name: string;
  password: string;
  marketingOptIn?: boolean;
}

export interface AuthResult {
  customer: PublicCustomer;
  tokens: AuthTokens;
}

const MAX_FAILED_ATTEMPTS = 5;
const LOCKOUT_MS = 15 * 60 * 1000;

export class AuthService {
  private readonly log = logger.child({ component: 'AuthService' });
  private readonly failedAttempts = new Map<string, { count: number; lockedUntil?: number }>();

  constructor(
    private readonly customers: CustomerRepository,
    private readonly options: AuthOptions,
  ) {}

  async register(input: RegisterInput): Promise<AuthResult> {
    const email = input.email.trim().toLowerCase();
    const problems = passwordProblems(input.password);
    if (problems.length > 0) {
      throw new ValidationError(problems.map((message) => ({ path: 'password', message })));
    }
    if (await this.customers.findByEmail(email)) {
      throw new ConflictError('An account with that email already exists');
    }
    const customer = await this.customers.create({
      email,
      name: input.name.trim(),
      passwordHash: await hashPassword(input.password),
      role: Role.Customer,
      addresses: [],
      marketingOptIn: input.marketingOptIn ?? false,
      disabled: false,
    });
    this.log.info('customer registered', { customerId: customer.id });
    return { customer: toPublicCustomer(customer), tokens: this.issueTokens(customer) };
  }

  async login(emailRaw: string, password: string, now = Date.now()): Promise<AuthResult> {
    const email = emailRaw.trim().toLowerCase();
    const attempts = this.failedAttempts.get(email);
    if (attempts?.lockedUntil && attempts.lockedUntil > now) {
      throw new UnauthorizedError('Account temporarily locked after repeated failures');
    }
    const customer = await this.customers.findByEmail(email);
    const valid = customer !== undefined && !customer.disabled && (await verifyPassword(password, customer.passwordHash));
    if (!customer || !valid) {
      this.recordFailure(email, now);
      throw new UnauthorizedError('Invalid email or password');
    }
    this.failedAttempts.delete(email);
    const updated = (await this.customers.update(customer.id, { lastLoginAt: new Date(now) })) ?? customer;
    return { customer: toPublicCustomer(updated), tokens: this.issueTokens(updated) };
  }

  async refresh(refreshToken: string): Promise<AuthTokens> {
    let subject: string;
    try {
      subject = verifyToken(refreshToken, this.options.secret, 'refresh').sub;
    } catch (err) {
      const reason = err instanceof TokenError ? err.reason : 'unknown';
      throw new UnauthorizedError(`Refresh token rejected (${reason})`);
    }
    const customer = await this.customers.findById(subject);
    if (!customer || customer.disabled) {
      throw new UnauthorizedError('Account no longer active');
    }
    return this.issueTokens(customer);
  }

  async changePassword(customerId: string, current: string, next: string): Promise<void> {
    const customer = await this.customers.findById(customerId);
    if (!customer || !(await verifyPassword(current, customer.passwordHash))) {
      throw new UnauthorizedError('Current password is incorrect');
    }
    const problems = passwordProblems(next);
    if (problems.length > 0) {
      throw new ValidationError(problems.map((message) => ({ path: 'newPassword', message })));
    }
    await this.customers.update(customerId, { passwordHash: await hashPassword(next) });
  }

  issueTokens(customer: Customer): AuthTokens {
    const claims = { sub: customer.id, email: customer.email, role: customer.role };
    return {
      tokenType: 'Bearer',
      accessToken: signToken({ ...claims, type: 'access' }, this.options.secret, this.options.accessTtlSeconds),
      refreshToken: signToken({ ...claims, type: 'refresh' }, this.options.secret, this.options.refreshTtlSeconds),
      expiresIn: this.options.accessTtlSeconds,
    };
  }

  private recordFailure(email: string, now: number): void {
    const entry = this.failedAttempts.get(email) ?? { count: 0 };
    entry.count += 1;
    if (entry.count >= MAX_FAILED_ATTEMPTS) {
      entry.lockedUntil = now + LOCKOUT_MS;
      entry.count = 0;
      this.log.warn('account locked after failed logins', { email });
    }
    this.failedAttempts.set(email, entry);
  }
}
