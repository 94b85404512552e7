/**
 * The analytics seam. Providers are set by lib/integrations.ts and only load when a key is configured and
 * consent is given; with no provider these calls do nothing and send nothing.
 */
export interface AnalyticsProvider {
  identify(userId: string): void;
  reset(): void;
  track(event: string, properties?: Record<string, string | number | boolean>): void;
}

let provider: AnalyticsProvider | null = null;

export function setAnalyticsProvider(next: AnalyticsProvider | null): void {
  provider = next;
}

export const analytics: AnalyticsProvider = {
  identify: (userId) => provider?.identify(userId),
  reset: () => provider?.reset(),
  track: (event, properties) => provider?.track(event, properties),
};
