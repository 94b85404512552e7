declare const __PUBLIC_SETTINGS__: {
  apiBaseUrl: string;
  socketBaseUrl: string;
  platform: 'web' | 'app';
  supportUrl: string;
  buildId: string;
  siteUrl: string;
  integrations: { analyticsKey: string; chatWidgetId: string; tagManagerId: string; adsClient: string };
};

/** URL of the static pages' script (app/site/site-script.ts), set by the build; empty in dev. */
declare const __SITE_SCRIPT__: string;
