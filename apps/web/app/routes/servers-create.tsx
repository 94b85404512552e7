import {
  DEFAULT_SOFTWARE,
  isJavaSoftware,
  javaFeatureFor,
  javaMajorFor,
  ownedServerLimitMessage,
  serverLimitOf,
  SERVER_NAME_MAX,
  serverName,
  type ServerDetails,
  type SoftwareId,
} from '@spawnpoint/contracts';
import confetti from 'canvas-confetti';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '../components/button.tsx';
import { ApiFailure } from '../lib/api.ts';
import { pageMeta } from '../lib/meta.ts';
import { checkName, createServer, listSoftware } from '../lib/servers.ts';
import { useSending } from '../lib/use-sending.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () => pageMeta('servers-create', 'Create a new Minecraft server.');

type Software = Awaited<ReturnType<typeof listSoftware>>[number];
type Availability = { state: 'idle' } | { state: 'checking' } | { state: 'available' } | { state: 'taken'; reason: string };

// The library's default instance draws in a worker made from a blob: URL, which the pages' CSP forbids.
let cannon: confetti.CreateTypes | null = null;

/** Confetti from the centre of an element. */
function confettiFrom(element: HTMLElement | null): void {
  if (!element || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  const rect = element.getBoundingClientRect();
  cannon ??= confetti.create(undefined, { resize: true, useWorker: false });
  void cannon({
    particleCount: 120,
    spread: 80,
    origin: { x: (rect.left + rect.width / 2) / window.innerWidth, y: (rect.top + rect.height / 2) / window.innerHeight },
  });
}

export default function CreateServer() {
  const navigate = useNavigate();
  const verified = useUser((s) => s.userData?.emailVerified ?? false);
  // Said before the form is filled in: the API would refuse the create anyway.
  // A paid plan on any owned server raises the limit (pricing: each plan's servers). Numbers, so the store's
  // selectors give the same value while nothing changed.
  const ownedCount = useUser((s) => s.servers.filter((server) => server.role === 'owner').length);
  const limit = useUser((s) => serverLimitOf(s.servers.filter((server) => server.role === 'owner').map((server) => server.planId)));
  const atLimit = ownedCount >= limit;
  const [name, setName] = useState('');
  const [software, setSoftware] = useState<Software[]>([]);
  const [softwareId, setSoftwareId] = useState<SoftwareId>(DEFAULT_SOFTWARE);
  const [version, setVersion] = useState('');
  // Snapshots and pre-releases are listed only once the owner asks for them.
  const [withPreviews, setWithPreviews] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const { sending: busy, send } = useSending();
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    listSoftware().then(
      (list) => {
        setSoftware(list);
        setVersion(list.find((s) => s.id === 'flying-squid')?.versions[0] ?? '');
      },
      () => undefined,
    );
  }, []);

  const availability = useNameAvailability(name);

  const selected = software.find((s) => s.id === softwareId);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    // One create at a time: a second one would be refused as a taken name (or make a second server).
    void send(async () => {
      setError(undefined);
      try {
        const server: ServerDetails = await createServer({ serverName: name.trim().toLowerCase(), software: softwareId, version });
        confettiFrom(button.current);
        navigate(`/servers/${server.serverId}`);
      } catch (err) {
        if (err instanceof ApiFailure) setError(err.fields.serverName ?? err.fields.version ?? undefined);
      }
    });
  }

  return (
    <main className="mx-auto max-w-2xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-slate-500">
        <Link to="/servers" className="inline-block py-1 hover:underline">
          Servers
        </Link>{' '}
        / <span className="text-slate-700">Create</span>
      </nav>
      <h1 className="mt-2 text-2xl font-bold">Create a server</h1>
      <CreateNotices verified={verified} atLimit={atLimit} limit={limit} />
      <form className="mt-6 space-y-6 rounded-xl border border-slate-200 bg-white p-6" onSubmit={submit} noValidate>
        <NameField name={name} onName={setName} availability={availability} error={error} />
        <div className="grid gap-4 sm:grid-cols-2">
          <SoftwareField
            software={software}
            softwareId={softwareId}
            onSoftware={(next) => {
              setSoftwareId(next.id);
              setVersion(next.versions[0] ?? '');
              setWithPreviews(false);
            }}
          />
          <VersionField
            software={selected}
            softwareId={softwareId}
            version={version}
            onVersion={setVersion}
            withPreviews={withPreviews}
            onPreviews={setWithPreviews}
          />
        </div>
        <Button
          ref={button}
          type="submit"
          className="w-full sm:w-auto"
          busy={busy}
          disabled={atLimit || availability.state === 'taken' || !name.trim()}
        >
          Create server
        </Button>
      </form>
    </main>
  );
}

/** Whether the name typed is free, asked a moment after the last key (the previous check cancelled). */
function useNameAvailability(name: string): Availability {
  const [availability, setAvailability] = useState<Availability>({ state: 'idle' });
  useEffect(() => {
    const candidate = name.trim().toLowerCase();
    if (!candidate) {
      setAvailability({ state: 'idle' });
      return;
    }
    const local = serverName.safeParse(candidate);
    if (!local.success) {
      setAvailability({ state: 'taken', reason: local.error.issues[0]?.message ?? 'This name is not valid.' });
      return;
    }
    setAvailability({ state: 'checking' });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      checkName(candidate, controller.signal).then(
        (result) =>
          setAvailability(
            result.available ? { state: 'available' } : { state: 'taken', reason: result.reason ?? 'This name is not available.' },
          ),
        () => setAvailability({ state: 'idle' }),
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [name]);
  return availability;
}

/** The software, each offered only where a node can install it now. */
function SoftwareField(props: { software: Software[]; softwareId: SoftwareId; onSoftware: (software: Software) => void }) {
  const { software, softwareId, onSoftware } = props;
  return (
    <div>
      <label htmlFor="server-software" className="block text-sm font-medium text-slate-700">
        Software
      </label>
      <select
        id="server-software"
        value={softwareId}
        onChange={(e) => {
          const next = software.find((s) => s.id === e.target.value);
          if (next) onSoftware(next);
        }}
        className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2"
      >
        {software.map((s) => (
          <option key={s.id} value={s.id} disabled={!s.available}>
            {s.name}
            {s.available ? '' : ' (no node can install it now)'}
          </option>
        ))}
      </select>
      {isJavaSoftware(softwareId) ? (
        <p className="mt-1 text-xs text-slate-500">
          Downloaded from its makers at the first start. Starting it asks you to accept the Minecraft EULA once.
        </p>
      ) : null}
    </div>
  );
}

/** The Minecraft version, the previews where asked for, and what the first start will install. */
function VersionField(props: {
  software: Software | undefined;
  softwareId: SoftwareId;
  version: string;
  onVersion: (version: string) => void;
  withPreviews: boolean;
  onPreviews: (on: boolean) => void;
}) {
  const { software, softwareId, version, onVersion, withPreviews, onPreviews } = props;
  return (
    <div>
      <label htmlFor="server-version" className="block text-sm font-medium text-slate-700">
        Minecraft version
      </label>
      <select
        id="server-version"
        value={version}
        onChange={(e) => onVersion(e.target.value)}
        className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2"
      >
        {(software?.versions ?? []).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
        {withPreviews && software?.previews.length ? (
          <optgroup label="Snapshots and pre-releases">
            {software.previews.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </optgroup>
        ) : null}
      </select>
      {software?.previews.length ? (
        <label className="mt-2 flex items-start gap-2 text-sm text-slate-700">
          <input
            type="checkbox"
            className="mt-0.5"
            checked={withPreviews}
            onChange={(e) => {
              onPreviews(e.target.checked);
              if (!e.target.checked && software.previews.includes(version)) onVersion(software.versions[0] ?? '');
            }}
          />
          <span>Also offer snapshots and pre-releases: test versions that can break worlds and plugins.</span>
        </label>
      ) : null}
      {isJavaSoftware(softwareId) && version ? (
        // What the first start will install besides the jar, so a long first start is no surprise.
        <p className="mt-1 text-xs text-slate-500" data-testid="java-note">
          {software?.javaDownloads.includes(version)
            ? `Runs on Java ${javaFeatureFor(javaMajorFor(version)) ?? javaMajorFor(version)}: the node downloads it (Eclipse Temurin, checked against Adoptium's SHA-256) at the first start.`
            : `Runs on Java ${javaMajorFor(version)} or newer, already on the node.`}
        </p>
      ) : null}
      {softwareId === 'flying-squid' && software ? (
        // A player on this year's Minecraft needs a version the built-in runtime does not speak.
        <p className="mt-1 text-xs text-slate-500" data-testid="builtin-versions">
          The built-in runtime speaks Minecraft {software.versions.at(-1)} to {software.versions[0]}. For newer releases, choose Paper,
          Purpur, Vanilla or Fabric.
        </p>
      ) : null}
    </div>
  );
}

/** The name, checked as it is typed: free, taken (and why), or refused by the create. */
function NameField(props: { name: string; onName: (name: string) => void; availability: Availability; error: string | undefined }) {
  const { name, onName, availability, error } = props;
  return (
    <div>
      <label htmlFor="server-name" className="block text-sm font-medium text-slate-700">
        Server name
      </label>
      <div className="mt-1 flex rounded-md shadow-sm">
        <input
          id="server-name"
          value={name}
          maxLength={SERVER_NAME_MAX}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => onName(e.target.value.toLowerCase())}
          aria-describedby="server-name-status"
          aria-invalid={availability.state === 'taken' || undefined}
          className="block w-full min-w-0 rounded-md border border-slate-300 px-3 py-2 font-mono"
          placeholder="my-server"
        />
      </div>
      <p id="server-name-status" className="mt-1 min-h-5 text-sm" aria-live="polite">
        {availability.state === 'checking' ? <span className="text-slate-500">Checking…</span> : null}
        {availability.state === 'available' ? <span className="text-brand-700">{name.trim()} is available.</span> : null}
        {availability.state === 'taken' ? <span className="text-red-600">{availability.reason}</span> : null}
        {error ? <span className="text-red-600">{error}</span> : null}
      </p>
      <p className="text-xs text-slate-500">3–16 lowercase letters, digits and dashes. It becomes part of your join address.</p>
    </div>
  );
}

/** Why creating may not work yet: an address not verified, or the plan's number of servers reached. */
function CreateNotices({ verified, atLimit, limit }: { verified: boolean; atLimit: boolean; limit: number }) {
  return (
    <>
      {!verified ? (
        <p className="mt-4 rounded-lg bg-amber-50 p-4 text-sm text-amber-900">
          Verify your email address first: open the link we emailed you. Creating a server before that sends you a new link.
        </p>
      ) : null}
      {atLimit ? (
        <p className="mt-4 rounded-lg bg-amber-50 p-4 text-sm text-amber-900" role="status">
          {ownedServerLimitMessage(limit)}{' '}
          <Link to="/servers" className="font-medium underline">
            Your servers
          </Link>
        </p>
      ) : null}
    </>
  );
}
