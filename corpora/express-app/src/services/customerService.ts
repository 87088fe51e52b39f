import { Address, Customer, CustomerRepository, PublicCustomer, Role, toPublicCustomer } from '../models/customer';
import { BadRequestError, ForbiddenError, NotFoundError } from '../utils/errors';
import { paginate, Page, PaginatedResult } from '../utils/pagination';
import type { AuthUser } from '../types';

export interface ProfileUpdate {
  name?: string;
  marketingOptIn?: boolean;
}

export const MAX_ADDRESSES = 10;

export class CustomerService {
  constructor(private readonly repo: CustomerRepository) {}

  async get(id: string): Promise<PublicCustomer> {
    return toPublicCustomer(await this.load(id));
  }

  async list(filter: { role?: Role; search?: string }, page: Page): Promise<PaginatedResult<PublicCustomer>> {
    const needle = filter.search?.toLowerCase();
    const customers = await this.repo.find(
      (customer) =>
        (!filter.role || customer.role === filter.role) &&
        (!needle || customer.email.includes(needle) || customer.name.toLowerCase().includes(needle)),
    );
    customers.sort((a, b) => a.email.localeCompare(b.email));
    return paginate(customers.map(toPublicCustomer), page);
  }

  async updateProfile(id: string, update: ProfileUpdate): Promise<PublicCustomer> {
    await this.load(id);
    const updated = await this.repo.update(id, update);
    return toPublicCustomer(updated as Customer);
  }

  async addAddress(id: string, address: Address, makeDefault = false): Promise<PublicCustomer> {
    const customer = await this.load(id);
    if (customer.addresses.length >= MAX_ADDRESSES) {
      throw new BadRequestError(`A customer may store at most ${MAX_ADDRESSES} addresses`);
    }
    const addresses = [...customer.addresses, { ...address, country: address.country.toUpperCase() }];
    const updated = await this.repo.update(id, {
      addresses,
      defaultAddressIndex: makeDefault || customer.defaultAddressIndex === undefined ? addresses.length - 1 : customer.defaultAddressIndex,
    });
    return toPublicCustomer(updated as Customer);
  }

  async removeAddress(id: string, index: number): Promise<PublicCustomer> {
    const customer = await this.load(id);
    if (index < 0 || index >= customer.addresses.length) {
      throw new NotFoundError('Address', String(index));
    }
    const addresses = customer.addresses.filter((_, i) => i !== index);
    let defaultAddressIndex = customer.defaultAddressIndex;
    if (defaultAddressIndex !== undefined) {
      if (defaultAddressIndex === index) defaultAddressIndex = addresses.length > 0 ? 0 : undefined;
      else if (defaultAddressIndex > index) defaultAddressIndex -= 1;
    }
    const updated = await this.repo.update(id, { addresses, defaultAddressIndex });
    return toPublicCustomer(updated as Customer);
  }

  async setRole(actor: AuthUser, id: string, role: Role): Promise<PublicCustomer> {
    if (actor.role !== Role.Admin) {
      throw new ForbiddenError('Only administrators can change roles');
    }
    if (actor.id === id && role !== Role.Admin) {
      throw new BadRequestError('Administrators cannot demote themselves');
    }
    await this.load(id);
    const updated = await this.repo.update(id, { role });
    return toPublicCustomer(updated as Customer);
  }

  async setDisabled(id: string, disabled: boolean): Promise<PublicCustomer> {
    await this.load(id);
    const updated = await this.repo.update(id, { disabled });
    return toPublicCustomer(updated as Customer);
  }

  canView(viewer: AuthUser, customerId: string): boolean {
    return viewer.id === customerId || viewer.role === Role.Staff || viewer.role === Role.Admin;
  }

  private async load(id: string): Promise<Customer> {
    const customer = await this.repo.findById(id);
    if (!customer) {
      throw new NotFoundError('Customer', id);
    }
    return customer;
  }
}
