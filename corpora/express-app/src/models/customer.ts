import { Entity, InMemoryRepository } from './base';

export enum Role {
  Customer = 'customer',
  Staff = 'staff',
  Admin = 'admin',
}

export interface Address {
  label: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postalCode: string;
  country: string;
}

export interface Customer extends Entity {
  email: string;
  name: string;
  passwordHash: string;
  role: Role;
  addresses: Address[];
  defaultAddressIndex?: number;
  marketingOptIn: boolean;
  lastLoginAt?: Date;
  disabled: boolean;
}

export type PublicCustomer = Omit<Customer, 'passwordHash'>;

export function toPublicCustomer(customer: Customer): PublicCustomer {
  const { passwordHash: _ignored, ...rest } = customer;
  return rest;
}

export function taxRegionOf(address: Address): string {
  return address.region ? `${address.country}-${address.region}` : address.country;
}

export class CustomerRepository extends InMemoryRepository<Customer> {
  protected readonly prefix = 'cus';

  async findByEmail(email: string): Promise<Customer | undefined> {
    const normalized = email.trim().toLowerCase();
    return this.findOne((customer) => customer.email === normalized);
  }

  async findByRole(role: Role): Promise<Customer[]> {
    return this.find((customer) => customer.role === role);
  }
}
