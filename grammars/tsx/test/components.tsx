import React from 'react';
import { UserList } from './UserList';

export function App({ users }: Props) {
//              ^ definition.function
  return (
    <Layout title="x">
//   ^ reference.jsx
      <UserList users={users} />
//     ^ reference.jsx
      <div className="x" />
//     ^ reference.jsx
      <UI.Button onClick={handleClick} />
//        ^ reference.jsx
    </Layout>
//    ^ reference.jsx
  );
}

export const Card = ({ children }: { children: React.ReactNode }) => <section>{children}</section>;
//           ^ definition.function
