// Each open table's columns and keys, described once and kept (an error in its place when the
// description failed, for the tab to show).
import { useCallback, useEffect, useState } from 'react';
import { api, type TableInfo } from '../api.ts';

export function useTableInfos(tables: readonly string[]) {
  const [infos, setInfos] = useState<Record<string, TableInfo | Error>>({});
  const ensureInfo = useCallback((table: string) => {
    setInfos((current) => {
      if (current[table]) return current;
      api
        .describe(table)
        .then((info) => setInfos((latest) => ({ ...latest, [table]: info })))
        .catch((error: unknown) =>
          setInfos((latest) => ({
            ...latest,
            [table]: error instanceof Error ? error : new Error(String(error)),
          })),
        );
      return current;
    });
  }, []);
  const key = tables.join('\n');
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for tables.
  useEffect(() => {
    for (const table of tables) ensureInfo(table);
  }, [key, ensureInfo]);
  return infos;
}
