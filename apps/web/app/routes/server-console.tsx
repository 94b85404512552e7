import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { PowerButtons } from '../components/power-buttons.tsx';
import { StateBadge } from '../components/state-badge.tsx';
import { ConsoleView } from '../lib/console-view.ts';
import { CONSOLE_BACKGROUND } from '../lib/console-palette.ts';
import { pageMeta } from '../lib/meta.ts';
import { sendCommand, subscribeServer } from '../lib/socket.ts';
import { notify } from '../lib/toasts.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-console', 'Live console of your server.');

const HISTORY_MAX = 100;

/**
 * The commands sent from this browser to a server, kept across reloads (the output is replayed by the API;
 * the commands were lost). Only strings are read back: the storage is this browser's, but old or edited.
 */
const historyKey = (serverId: string) => `spawnpoint:console-history:${serverId}`;
function readHistory(serverId: string): string[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(historyKey(serverId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string').slice(-HISTORY_MAX) : [];
  } catch {
    return [];
  }
}
function keepHistory(serverId: string, commands: string[]): void {
  try {
    localStorage.setItem(historyKey(serverId), JSON.stringify(commands));
  } catch {
    // Storage full or refused (private mode): the history lasts as long as the page.
  }
}

export default function ServerConsole() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const host = useRef<HTMLDivElement>(null);
  const [command, setCommand] = useState('');
  const history = useCommandHistory(id, command, setCommand);

  useEffect(() => {
    if (!host.current) return;
    const view = new ConsoleView(host.current);
    const unsubscribe = subscribeServer(id, {
      onConsole: (lines) => view.write(lines),
      // A lost permission is the page's to handle (useServer fetches the server again and leaves if it is gone).
      onError: (status, message) => status !== 'NO_PERMISSION' && notify('danger', 'Whoopsie!', message),
    });
    return () => {
      unsubscribe();
      view.dispose();
    };
  }, [id]);

  // A command typed as the page opens waits a moment for the live connection to sign in.
  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const value = command.trim();
    if (!value) return;
    if (!(await sendCommand(id, value))) {
      notify('warning', 'Not connected', 'The live connection is being re-established. Try again in a moment.');
      return;
    }
    history.remember(value);
    // What was typed meanwhile stays.
    setCommand((typed) => (typed.trim() === value ? '' : typed));
  }

  const running = load.status === 'ready' && (load.state === 'online' || load.state === 'starting');
  // What the caller's role allows, as the API sent it with the server: never guessed here.
  const mayCommand = load.status === 'ready' && load.server.permissions.includes('console.command');
  return (
    <>
      <ConsoleHeader serverId={id} load={load} />
      {load.status === 'missing' ? (
        <p className="p-6 text-slate-300">{load.message}</p>
      ) : (
        // Text, not a canvas: it wraps at a phone's width, can be selected and copied, and is read by screen readers.
        <div
          ref={host}
          role="log"
          aria-label="Console output"
          tabIndex={0}
          className="console-output min-h-0 flex-1 overflow-y-auto px-3 py-2 font-mono text-[13px] leading-5"
          style={{ backgroundColor: CONSOLE_BACKGROUND }}
          data-testid="console-output"
          data-empty="Nothing yet. The server's output appears here while it starts and runs."
        />
      )}
      <form onSubmit={(event) => void submit(event)} className="flex gap-2 border-t border-slate-800 p-3">
        <label htmlFor="console-command" className="sr-only">
          Command
        </label>
        <span className="self-center font-mono text-brand-500" aria-hidden="true">
          &gt;
        </span>
        <input
          id="console-command"
          value={command}
          onChange={(e) => setCommand(e.target.value)}
          onKeyDown={history.onKeyDown}
          maxLength={256}
          autoComplete="off"
          spellCheck={false}
          disabled={!mayCommand}
          placeholder={
            // Until the server is loaded, what the role allows is not known yet: no refusal is said.
            load.status !== 'ready'
              ? 'Loading…'
              : !mayCommand
                ? 'Your role cannot send commands'
                : running
                  ? 'Type a command, for example: say hello'
                  : 'Start the server first'
          }
          className="min-w-0 flex-1 rounded-md border border-slate-700 bg-slate-900 px-3 py-2 font-mono text-sm text-slate-100 placeholder:text-slate-500"
        />
        <button
          type="submit"
          className="rounded-md bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700 disabled:opacity-50"
          disabled={!running || !mayCommand}
        >
          Send
        </button>
      </form>
    </>
  );
}

/**
 * The commands sent before (kept per server in this browser): ↑ and ↓ walk them, and what was being typed
 * comes back past the newest.
 */
function useCommandHistory(serverId: string, command: string, setCommand: (command: string) => void) {
  const history = useRef<string[]>([]);
  useEffect(() => {
    history.current = readHistory(serverId);
  }, [serverId]);
  const cursor = useRef(-1);
  const draft = useRef('');
  const remember = (value: string) => {
    history.current = [...history.current.filter((c) => c !== value), value].slice(-HISTORY_MAX);
    keepHistory(serverId, history.current);
    cursor.current = -1;
  };
  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    const list = history.current;
    if (event.key === 'ArrowUp' && list.length) {
      event.preventDefault();
      if (cursor.current === -1) draft.current = command;
      cursor.current = cursor.current === -1 ? list.length - 1 : Math.max(0, cursor.current - 1);
      setCommand(list[cursor.current] ?? '');
    } else if (event.key === 'ArrowDown' && cursor.current !== -1) {
      event.preventDefault();
      cursor.current += 1;
      if (cursor.current >= list.length) {
        cursor.current = -1;
        setCommand(draft.current);
      } else setCommand(list[cursor.current] ?? '');
    }
  };
  return { remember, onKeyDown };
}

/** Back to the server, its name and state, and the power buttons. */
function ConsoleHeader({ serverId, load }: { serverId: string; load: ReturnType<typeof useServer> }) {
  return (
    <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-800 px-4 py-2">
      <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
        <Link to={`/servers/${serverId}`} className="text-sm text-slate-300 hover:text-white">
          ← Back
        </Link>
        <h1 className="min-w-0 font-sans font-semibold break-all">{load.status === 'ready' ? load.server.name : 'Console'}</h1>
        {load.status === 'ready' ? (
          <span className="rounded-full bg-white">
            <StateBadge state={load.state} />
          </span>
        ) : null}
      </div>
      {load.status === 'ready' ? (
        <PowerButtons
          serverId={serverId}
          state={load.state}
          permissions={load.server.permissions}
          actions={['start', 'stop', 'restart']}
          eulaAccepted={load.server.eulaAccepted}
        />
      ) : null}
    </header>
  );
}
