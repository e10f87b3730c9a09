// Short messages in the corner: an error stays longer than news.
import { useCallback, useState } from 'react';
import type { Toast } from '../widgets.tsx';

export function useToasts() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const toast = useCallback((text: string, kind: Toast['kind'] = 'info') => {
    const id = Date.now() + Math.random();
    setToasts((current) => [...current.slice(-3), { id, text, kind }]);
    setTimeout(
      () => setToasts((current) => current.filter((t) => t.id !== id)),
      kind === 'error' ? 8000 : 4000,
    );
  }, []);
  const toastError = useCallback(
    (error: unknown) => toast(error instanceof Error ? error.message : String(error), 'error'),
    [toast],
  );
  return { toasts, toast, toastError };
}
