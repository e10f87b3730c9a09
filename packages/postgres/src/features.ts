/** What PostgreSQL can do that some tools need (the rows' `needs`): tables related by foreign keys. */
export const POSTGRES_FEATURES: readonly string[] = ['foreignKeys'];
