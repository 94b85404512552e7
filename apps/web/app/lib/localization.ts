import { DEFAULT_CURRENCY, endpoints } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { call } from './api.ts';

let cached: Promise<string> | null = null;

/** The visitor's currency from GET /v1/localization (USD until it answers, and on failure). */
export function useCurrency(): string {
  const [currency, setCurrency] = useState(DEFAULT_CURRENCY);
  useEffect(() => {
    cached ??= call(endpoints.localization, {}, { background: true }).then(
      (r) => r.currency,
      () => DEFAULT_CURRENCY,
    );
    void cached.then(setCurrency);
  }, []);
  return currency;
}
