// The Plugins page's uploads: the owner's own .js plugin for the built-in runtime, and a .jar for Java servers.
import { endpoints, PLUGIN_JAR_MAX_BYTES, PLUGIN_UPLOAD_MAX_BYTES, type ServerPluginsResult } from '@spawnpoint/contracts';
import { useRef, useState } from 'react';
import { FILE_INPUT_CLASS, FormError } from '../field.tsx';
import { ApiFailure, call } from '../../lib/api.ts';
import { uploadPluginJar } from '../../lib/files.ts';
import { notify } from '../../lib/toasts.ts';
import { useSending } from '../../lib/use-sending.ts';
import { CARD_CLASS as card } from '../styles.ts';

export function UploadPlugin({
  serverId,
  allowed,
  onDone,
}: {
  serverId: string;
  allowed: boolean;
  onDone: (result: ServerPluginsResult) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string>();
  const { sending, send } = useSending();

  const upload = (file: File) =>
    void send(async () => {
      setError(undefined);
      // Said before sending anything: the API would refuse it for the same reasons.
      if (!file.name.endsWith('.js')) return setError('A plugin of your own is a .js file.');
      if (file.size > PLUGIN_UPLOAD_MAX_BYTES) return setError(`${file.name} is larger than ${PLUGIN_UPLOAD_MAX_BYTES / 1024} KiB.`);
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = '';
      for (const byte of bytes) binary += String.fromCharCode(byte);
      try {
        onDone(await call(endpoints.pluginUpload, { params: { serverId }, body: { fileName: file.name, content: btoa(binary) } }));
        notify('success', `${file.name} uploaded`, 'It loads when the server starts.');
      } catch (failure) {
        if (failure instanceof ApiFailure) setError(Object.values(failure.fields)[0] ?? failure.message);
      } finally {
        if (input.current) input.current.value = '';
      }
    });

  return (
    <section aria-labelledby="upload-heading" className={card}>
      <h2 id="upload-heading" className="text-lg font-semibold">
        Your own plugin
      </h2>
      {allowed ? (
        <>
          <p className="mt-1 text-sm text-slate-600">
            A flying-squid plugin: a <code>.js</code> file exporting <code>server</code> and/or <code>player</code> functions, at most{' '}
            {PLUGIN_UPLOAD_MAX_BYTES / 1024} KiB. It runs inside your server&apos;s own sandbox, never beside other servers.
          </p>
          <label htmlFor="plugin-file" className="mt-3 block text-sm font-medium text-slate-700">
            Plugin file
          </label>
          <input
            ref={input}
            id="plugin-file"
            type="file"
            accept=".js,text/javascript"
            disabled={sending}
            className={`mt-1 ${FILE_INPUT_CLASS}`}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) upload(file);
            }}
          />
          <div className="mt-2">
            <FormError message={error} />
          </div>
        </>
      ) : (
        <p className="mt-1 text-sm text-slate-600">
          This node runs game servers without their sandbox, so it does not run plugin code of your own. The catalogue&apos;s plugins work.
        </p>
      )}
    </section>
  );
}

/** Modrinth and Hangar, searched for what fits the server's software and version; installed with one click. */

/** An owner's own plugin (Paper, Purpur) or mod (Fabric) jar, sent with progress; the node keeps only a real one. */
export function UploadJar({ serverId, mods, onDone }: { serverId: string; mods: boolean; onDone: (result: ServerPluginsResult) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string>();
  const [progress, setProgress] = useState<{ name: string; loaded: number; total: number } | null>(null);
  const kind = mods ? 'mod' : 'plugin';

  const upload = async (file: File) => {
    setError(undefined);
    // Said before sending anything: the API would refuse it for the same reasons.
    if (!file.name.endsWith('.jar')) return setError(`A ${kind} is a .jar file.`);
    if (file.size > PLUGIN_JAR_MAX_BYTES) return setError(`${file.name} is larger than ${PLUGIN_JAR_MAX_BYTES / 1024 / 1024} MiB.`);
    setProgress({ name: file.name, loaded: 0, total: file.size });
    try {
      const result = await uploadPluginJar(serverId, file, (loaded) => setProgress((p) => p && { ...p, loaded }));
      onDone(result);
      notify('success', `${file.name} uploaded`, 'It loads when the server (re)starts.');
    } catch (failure) {
      if (failure instanceof ApiFailure) setError(Object.values(failure.fields)[0] ?? failure.message);
    } finally {
      setProgress(null);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <section aria-labelledby="upload-jar-heading" className={card}>
      <h2 id="upload-jar-heading" className="text-lg font-semibold">
        Upload a {kind} of your own
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        A <code>.jar</code> of at most {PLUGIN_JAR_MAX_BYTES / 1024 / 1024} MiB that holds{' '}
        {mods ? (
          <code>fabric.mod.json</code>
        ) : (
          <>
            <code>plugin.yml</code> or <code>paper-plugin.yml</code>
          </>
        )}
        . It goes into <code>{mods ? 'mods' : 'plugins'}/</code> and loads at the next start.
      </p>
      <label htmlFor="plugin-jar" className="mt-3 block text-sm font-medium text-slate-700">
        {mods ? 'Mod' : 'Plugin'} file
      </label>
      <input
        ref={input}
        id="plugin-jar"
        type="file"
        accept=".jar,application/java-archive"
        disabled={progress !== null}
        className={`mt-1 ${FILE_INPUT_CLASS}`}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void upload(file);
        }}
      />
      {progress ? (
        <div className="mt-3 text-sm text-slate-700" role="status">
          Uploading {progress.name}…
          <progress
            className="mt-1 h-2 w-full accent-brand-600"
            max={progress.total || 1}
            value={progress.loaded}
            aria-label="Upload progress"
          />
        </div>
      ) : null}
      <div className="mt-2">
        <FormError message={error} />
      </div>
    </section>
  );
}
