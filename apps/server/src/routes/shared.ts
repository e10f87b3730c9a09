// What more than one route module reads requests with.
import { z } from 'zod';
import { rowKey } from '../body.ts';

/** A row's primary key: column → value, or the value alone for a one-column key. */
export const primaryKey = z.union([rowKey, z.string(), z.number()]);

/** The app's base URL on this machine. */
export const origin = (port: number) => `http://127.0.0.1:${port}`;
