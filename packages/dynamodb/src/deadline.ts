// A read's time limit and its caller's cancel, as one AbortSignal the AWS SDK honours; and the
// error that says which of the two stopped it. Every read of the engine goes through it, so a
// DynamoDB that stalls never holds a tool, the workbench or an export past its limit.
import { DataSourceError } from '@toolrow/datasource';

export interface ReadLimits {
  signal?: AbortSignal;
  /** Wall-clock limit in ms (0 or absent: none). */
  timeoutMs?: number;
}

export interface Deadline {
  /** Pass to client.send(command, { abortSignal }). */
  readonly signal: AbortSignal | undefined;
  /** The error to throw for a failure: the time limit's or the cancel's when one fired, else `error`. */
  explain(error: unknown): unknown;
}

export function deadlineOf(limits: ReadLimits, what: string): Deadline {
  const timer = limits.timeoutMs && limits.timeoutMs > 0 ? AbortSignal.timeout(limits.timeoutMs) : undefined;
  const signals = [limits.signal, timer].filter((each): each is AbortSignal => each !== undefined);
  const signal =
    signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  return {
    signal,
    explain(error) {
      if (limits.signal?.aborted)
        return new DataSourceError('aborted', `${what} was cancelled before it finished.`, { cause: error });
      if (timer?.aborted)
        return new DataSourceError(
          'timeout',
          `${what} did not finish within its time limit of ${formatSeconds(limits.timeoutMs!)} (DynamoDB did not answer in time, or the read needs more pages than fit): nothing more was read. Narrow it to a key (a Query), or export it instead.`,
          { cause: error },
        );
      return error;
    },
  };
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
