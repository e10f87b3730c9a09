export * from './generated/write-scopes.ts';
