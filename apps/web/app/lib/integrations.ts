import { CHAT_COOKIE_SECONDS, CONSENT_KEY, integrationHosts } from '@spawnpoint/contracts';
import { setAnalyticsProvider } from './analytics.ts';
import { prepareChat, switchChat, type ChatUser } from './chat-identity.ts';
import { settings } from './settings.ts';
import { createStore } from './store.ts';

export type Consent = 'accepted' | 'declined' | null;

const keys = settings.integrations;
export const anyIntegration = Boolean(keys.analyticsKey || keys.chatWidgetId || keys.tagManagerId || keys.adsClient);

function storedConsent(): Consent {
  try {
    const value = localStorage.getItem(CONSENT_KEY);
    return value === 'accepted' || value === 'declined' ? value : null;
  } catch {
    return null;
  }
}

export const consentStore = createStore<Consent>(null);

export function initConsent(): void {
  consentStore.set(storedConsent());
  if (consentStore.get() === 'accepted') loadIntegrations();
}

export function setConsent(value: Exclude<Consent, null>): void {
  try {
    localStorage.setItem(CONSENT_KEY, value);
  } catch {
    // remembered for this page only
  }
  consentStore.set(value);
  if (value === 'accepted') loadIntegrations();
}

function script(src: string, attrs: Record<string, string> = {}): void {
  const el = document.createElement('script');
  el.src = src;
  el.async = true;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  document.head.appendChild(el);
}

type Win = Window & {
  posthog?: {
    init(key: string, o: Record<string, unknown>): void;
    capture(e: string, p?: Record<string, unknown>): void;
    identify(id: string): void;
    reset(): void;
  };
  $crisp?: unknown[];
  CRISP_TOKEN_ID?: string;
  CRISP_WEBSITE_ID?: string;
  CRISP_COOKIE_EXPIRE?: number;
  dataLayer?: unknown[];
  adsbygoogle?: unknown[];
};

let loaded = false;
let chatLoaded = false;
let chatUser: ChatUser | null = null;

/** Called whenever who is signed in is known or changes (null: signed out). */
export function identifyChat(user: ChatUser | null): void {
  const previous = chatUser;
  chatUser = user && { emailAddress: user.emailAddress, chatWidgetToken: user.chatWidgetToken };
  if (chatLoaded) switchChat(window as Win, previous, chatUser);
}

/** Loads each configured integration once, after consent. With no keys this does nothing at all. */
function loadIntegrations(): void {
  if (loaded || !anyIntegration) return;
  loaded = true;
  const w = window as Win;
  if (keys.analyticsKey) {
    script(`${integrationHosts.analytics.script}/static/array.js`);
    const wait = setInterval(() => {
      if (!w.posthog?.init) return;
      clearInterval(wait);
      // Identified-only profiles, page views sent by hand, the EU interface, debug outside production.
      w.posthog.init(keys.analyticsKey, {
        api_host: integrationHosts.analytics.connect,
        person_profiles: 'identified_only',
        capture_pageview: false,
        capture_pageleave: false,
        debug: !import.meta.env.PROD,
      });
      const ph = w.posthog;
      setAnalyticsProvider({ identify: (id) => ph.identify(id), reset: () => ph.reset(), track: (e, p) => ph.capture(e, p) });
      trackPageView(location.pathname);
    }, 200);
  }
  if (keys.chatWidgetId) {
    prepareChat(w, chatUser);
    chatLoaded = true;
    w.CRISP_WEBSITE_ID = keys.chatWidgetId;
    w.CRISP_COOKIE_EXPIRE = CHAT_COOKIE_SECONDS;
    script(`${integrationHosts.chatWidget.script}/l.js`);
  }
  if (keys.tagManagerId) {
    w.dataLayer = w.dataLayer ?? [];
    w.dataLayer.push({ 'gtm.start': Date.now(), event: 'gtm.js', debug_mode: !import.meta.env.PROD });
    script(`${integrationHosts.tagManager.script}/gtm.js?id=${encodeURIComponent(keys.tagManagerId)}`);
  }
  if (keys.adsClient)
    script(`${integrationHosts.ads.script}/pagead/js/adsbygoogle.js?client=${encodeURIComponent(keys.adsClient)}`, {
      crossorigin: 'anonymous',
    });
}

/** Called on every route change: a manual page view, and ads refreshed. */
export function trackPageView(path: string): void {
  if (!loaded) return;
  const w = window as Win;
  w.posthog?.capture?.('$pageview', { path });
  w.dataLayer?.push({ event: 'page_view', page_path: path });
  if (keys.adsClient && w.adsbygoogle) w.adsbygoogle.push({});
}
