import { useSyncExternalStore } from 'react';
import type { Store } from './store.ts';

export function useStore<T, S>(store: Store<T>, select: (state: T) => S, serverState?: T): S {
  return useSyncExternalStore(
    store.subscribe,
    () => select(store.get()),
    () => select(serverState ?? store.get()),
  );
}
