declare const __PUBLIC_SETTINGS__: {
  apiBaseUrl: string;
  socketBaseUrl: string;
  platform: 'web' | 'app';
  supportUrl: string;
  buildId: string;
  siteUrl: string;
  integrations: { analyticsKey: string; chatWidgetId: string; tagManagerId: string; adsClient: string };
};
