// Which read-only layers hold on a connection, as `connections test` and `db info` show them.

export type ReaderRoleState =
  /** PGlite: Toolrow made the role itself. */
  | 'embedded'
  /** A server role the login user may SET ROLE to, with no write privilege: in use. */
  | 'in-use'
  /** No such role on the server. */
  | 'missing'
  /** The role exists but the login user is not a member of it. */
  | 'not-member'
  /** The role could write (or is a superuser): not used, since it would protect nothing. */
  | 'unsafe'
  /** Found under the default name but cannot read some tables: not used unless TOOLROW_READER_ROLE names it. */
  | 'incomplete';

export interface ReaderRoleStatus {
  role: string;
  state: ReaderRoleState;
  /** In use, and what the hardening takes from PUBLIC (hardeningSql) is out of its reach. */
  hardened?: boolean;
  /** One sentence for `toolrow db info`. */
  detail: string;
}

export interface ReadLayer {
  layer: string;
  active: boolean;
  detail: string;
}
