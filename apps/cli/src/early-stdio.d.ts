import type { Transport } from '@modelcontextprotocol/server';

export declare function servesStdio(argv: readonly string[]): boolean;
export declare function startEarlyStdio(argv: readonly string[]): Promise<void>;
/** The wire whose handshake the bin answered, once; undefined when the bin did not start one. */
export declare function takeEarlyStdio(): Transport | undefined;
export declare function closeUntakenEarlyStdio(): Promise<void>;
