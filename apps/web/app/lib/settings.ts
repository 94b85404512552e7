/** Public settings baked in at build time (vite.config.ts). */
export const settings = __PUBLIC_SETTINGS__;
