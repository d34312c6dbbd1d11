import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** When the data shown was fetched. */
  at: number | undefined;
  reload: () => void;
}

/**
 * Data for a screen: fetched on mount and whenever `key` changes, the previous request
 * aborted; an error kept beside the last good data (shown as stale, with its age).
 */
export function useLoad<T>(
  key: string | null,
  fetcher: (signal: AbortSignal) => Promise<T>,
): Loaded<T> {
  const [state, setState] = useState<Omit<Loaded<T>, 'reload'>>({
    data: undefined,
    error: undefined,
    loading: key !== null,
    at: undefined,
  });
  const [round, setRound] = useState(0);
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    fetcherRef.current(controller.signal).then(
      (data) => setState({ data, error: undefined, loading: false, at: Date.now() }),
      (error: unknown) => {
        if ((error as Error).name === 'AbortError') return;
        const failure =
          error instanceof ApiError ? error : new ApiError(0, 'unreadable', undefined);
        setState((s) => ({ ...s, error: failure, loading: false }));
      },
    );
    return () => controller.abort();
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}
