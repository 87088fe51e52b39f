import express, { Router as R, type Request } from 'express';
// <- import.statement
import * as path from 'node:path';
import './side-effect';
export { helper as aid } from './util';
// <- export.statement
export * from './models';
const fs = require('fs');
//         ^ import.require
const { readFile } = require('fs/promises');

export interface Repo<T> extends Base {
//               ^ definition.interface
//                    ^ local.definition
//                               ^ reference.inherits
  find(id: string): T;
//^ definition.method
}

export type Id = string | number;
//          ^ definition.type

enum Color { Red, Green }
//   ^ definition.enum

export class UserService extends BaseService implements Repo<User> {
//           ^ definition.class
//                               ^ reference.inherits
//                                                      ^ reference.implements
  private cache = new Map<string, User>();
//        ^ definition.property
//                    ^ reference.new
  handler = (req: Request) => this.find(req.params.id);
//^ definition.method
//                ^ reference.type
//                                 ^ reference.call

  constructor(private readonly repo: UserRepository) {
//                                   ^ reference.type
    super();
//  ^ reference.call
  }

  @Cached()
//  ^ reference.call
  async find(id: string): Promise<User> {
//      ^ definition.method
    return this.repo.find(id);
//                   ^ reference.call
//                        ^ reference.argument
  }
}

export function createApp(): express.Application {
//              ^ definition.function
  const app = express();
//            ^ reference.call
  app.use(authMiddleware, express.static('public'));
//    ^ reference.call
//        ^ reference.argument
//                                ^ reference.call
  const router = R();
  router.get('/', (req, res) => res.json({}));
//       ^ reference.call
  return app;
}

export const authMiddleware = async (req: Request, res: any, next: () => void) => {
//           ^ definition.function
  next();
//^ reference.call
};

export const api = {
//           ^ definition.variable
  get() { return 1; },
//^ definition.method
  post: (x: number) => x,
//^ definition.method
};

export default function () {}
//             ^ definition.function

const lazy = await import('./lazy');
//                 ^ import.dynamic
handlers[name]();
// <- reference.call
type Lazy = typeof lazy;
//                 ^ reference.type
