import { randomBytes } from 'node:crypto';
import { reactRouter } from '@react-router/dev/vite';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig, type Plugin } from 'vite';
import { siteScript } from './scripts/site-script-plugin.ts';

// The config is loaded once per build environment; all of them must bake in the same id.
process.env.BUILD_ID ??= `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
const buildId = process.env.BUILD_ID;

/** Writes builds/latest.json so open tabs can notice a newer deployment and reload. */
function latestBuildManifest(): Plugin {
  return {
    name: 'spawnpoint-latest-build',
    apply: 'build',
    generateBundle() {
      if (this.environment.name !== 'client') return;
      this.emitFile({
        type: 'asset',
        fileName: 'builds/latest.json',
        source: JSON.stringify({ id: buildId, timestamp: Date.now() }),
      });
    },
  };
}

// Public settings baked into the web build. Same names as the API's variables where they mean the same.
const publicSettings = {
  apiBaseUrl: process.env.API_BASE_URL ?? '',
  socketBaseUrl: process.env.SOCKET_BASE_URL ?? '',
  platform: process.env.PLATFORM === 'app' ? 'app' : 'web',
  supportUrl: process.env.SUPPORT_URL ?? 'https://help.spawnpoint.gg',
  buildId,
  siteUrl: (process.env.PUBLIC_URL ?? 'http://localhost:3000').replace(/\/$/, ''),
  // Third-party integrations: each loads only when its key is set and the visitor consents.
  integrations: {
    analyticsKey: process.env.ANALYTICS_KEY ?? '',
    chatWidgetId: process.env.CHAT_WIDGET_ID ?? '',
    tagManagerId: process.env.TAG_MANAGER_ID ?? '',
    adsClient: process.env.ADS_CLIENT ?? '',
  },
};

const define = { __PUBLIC_SETTINGS__: JSON.stringify(publicSettings) };

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), latestBuildManifest(), siteScript('app/site/site-script.ts', define)],
  define,
  server: { port: 5173, proxy: { '/v1': 'http://localhost:3000', '/socket.io': { target: 'ws://localhost:3000', ws: true } } },
});
