/**
 * Third-party integrations. Each loads only when its key is configured and the visitor has
 * accepted optional cookies; the API adds their hosts to the pages' Content-Security-Policy only when set.
 */
export const integrationHosts = {
  analytics: { script: 'https://eu-assets.i.posthog.com', connect: 'https://eu.i.posthog.com' },
  chatWidget: { script: 'https://client.crisp.chat', connect: 'wss://client.relay.crisp.chat' },
  tagManager: { script: 'https://www.googletagmanager.com', connect: 'https://www.google-analytics.com' },
  ads: { script: 'https://pagead2.googlesyndication.com', connect: 'https://pagead2.googlesyndication.com' },
} as const;

export type IntegrationName = keyof typeof integrationHosts;
export const CONSENT_KEY = 'spawnpoint:consent';
/** Chat widget session cookie lifetime: 5 days. */
export const CHAT_COOKIE_SECONDS = 432_000;
