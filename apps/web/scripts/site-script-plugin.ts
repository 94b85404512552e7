import { createHash } from 'node:crypto';
import { build, type Plugin, type Rolldown } from 'vite';

let bundled: Promise<{ fileName: string; code: string }> | null = null;

/** Bundles the static pages' script on its own, so it shares no chunk with (and pulls in nothing of) React. */
async function bundle(entry: string, define: Record<string, string>): Promise<{ fileName: string; code: string }> {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    mode: 'production',
    define,
    build: {
      write: false,
      minify: true,
      target: 'es2022',
      copyPublicDir: false,
      modulePreload: false,
      rolldownOptions: { input: entry, output: { format: 'es', entryFileNames: 'site.js' } },
    },
  });
  const outputs = (Array.isArray(output) ? output : [output]) as Rolldown.RolldownOutput[];
  const chunk = outputs.flatMap((o) => o.output).find((o): o is Rolldown.OutputChunk => o.type === 'chunk' && o.isEntry);
  if (!chunk) throw new Error(`site script: no entry chunk built from ${entry}`);
  const hash = createHash('sha256').update(chunk.code).digest('hex').slice(0, 10);
  return { fileName: `assets/site-${hash}.js`, code: chunk.code };
}

/**
 * Builds `entry` (app/site/site-script.ts) into `assets/site-<hash>.js` of the client build and defines
 * `__SITE_SCRIPT__` as its URL for the prerendered static pages. In dev every page is the full app.
 */
export function siteScript(entry: string, define: Record<string, string>): Plugin {
  return {
    name: 'spawnpoint-site-script',
    async config(_config, env) {
      if (env.command !== 'build') return { define: { __SITE_SCRIPT__: JSON.stringify('') } };
      bundled ??= bundle(entry, define);
      const { fileName } = await bundled;
      return { define: { __SITE_SCRIPT__: JSON.stringify(`/${fileName}`) } };
    },
    async generateBundle() {
      if (this.environment.name !== 'client' || !bundled) return;
      const { fileName, code } = await bundled;
      this.emitFile({ type: 'asset', fileName, source: code });
    },
  };
}
