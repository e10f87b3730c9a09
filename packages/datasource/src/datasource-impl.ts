import type { DataSource, OpenDataSourceOptions } from './datasource.ts';

/** Opens the database the environment names, runs the migrations and wires every part. */
export async function openDataSource(_options: OpenDataSourceOptions = {}): Promise<DataSource> {
  throw new Error('not implemented');
}
