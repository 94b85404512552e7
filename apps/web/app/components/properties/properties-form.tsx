import { MOTD_RAW_MAX, type ServerProperties, type ServerPropertiesView } from '@spawnpoint/contracts';
import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiFailure } from '../../lib/api.ts';
import { putProperties } from '../../lib/files.ts';
import { powerServer } from '../../lib/servers.ts';
import { notify } from '../../lib/toasts.ts';
import { useSending } from '../../lib/use-sending.ts';
import { Button } from '../button.tsx';

const input = 'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2';

/** A part of the form: the values, a setter for one of them, and the API's field messages. */
interface PartProps {
  values: ServerPropertiesView;
  set: <K extends keyof ServerPropertiesView>(key: K, value: ServerPropertiesView[K]) => void;
  errors: Record<string, string>;
}

/**
 * server.properties as a form. `loaded` is the file as last read or saved: only what the user changed is
 * sent, so a value the form would refuse (a tenant can write anything into the file) or a two-line MOTD
 * from the Appearance page is kept unless edited.
 */
export function PropertiesForm({
  serverId,
  loaded,
  playerSlots,
  running,
  onSaved,
}: {
  serverId: string;
  loaded: ServerPropertiesView;
  playerSlots: number;
  running: boolean;
  onSaved: (saved: ServerPropertiesView) => void;
}) {
  const [values, setValues] = useState(loaded);
  useEffect(() => setValues(loaded), [loaded]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { sending: saving, send } = useSending();
  const [saved, setSaved] = useState(false);
  const set: PartProps['set'] = (key, value) => setValues((v) => ({ ...v, [key]: value }));

  function save(event: React.FormEvent) {
    event.preventDefault();
    const changed = Object.fromEntries(
      Object.entries(values).filter(([key, value]) => loaded[key as keyof ServerPropertiesView] !== value),
    ) as Partial<ServerProperties>;
    if (Object.keys(changed).length === 0) {
      notify('info', 'Nothing to save', 'No setting was changed.');
      return;
    }
    void send(async () => {
      setErrors({});
      try {
        onSaved(await putProperties(serverId, changed));
        setSaved(true);
        notify('success', 'Settings saved', 'They apply the next time the server starts.');
      } catch (err) {
        if (err instanceof ApiFailure) setErrors(err.fields);
      }
    });
  }

  return (
    <form onSubmit={save} className="max-w-2xl space-y-5 rounded-xl border border-slate-200 bg-white p-6" noValidate>
      <MotdField serverId={serverId} values={values} set={set} errors={errors} />
      <WorldFields values={values} set={set} errors={errors} playerSlots={playerSlots} />
      <p className="text-xs text-slate-500">
        World type and seed only shape a new world: delete the world folder in Files to generate it again.
      </p>
      <PlayerOptions serverId={serverId} values={values} set={set} errors={errors} />
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" busy={saving}>
          Save
        </Button>
        {saved && running ? (
          <Button
            type="button"
            variant="secondary"
            onClick={async () => {
              await powerServer(serverId, 'restart').catch(() => undefined);
              setSaved(false);
            }}
          >
            Restart now to apply
          </Button>
        ) : null}
      </div>
    </form>
  );
}

function FieldError({ message }: { message: string | undefined }) {
  return message ? <p className="text-sm text-red-600">{message}</p> : null;
}

/** A labelled control of the form, with its hint and the API's message under it. */
function Labelled({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {children}
      {hint ? <p className="mt-1 text-xs text-slate-500">{hint}</p> : null}
      <FieldError message={error} />
    </div>
  );
}

function MotdField({ serverId, values, set, errors }: PartProps & { serverId: string }) {
  return (
    <Labelled
      id="p-motd"
      label="Message of the day"
      error={errors.motd}
      hint={
        <>
          Shown in the players’ server list. Colours and a second line:{' '}
          <Link to={`/servers/${serverId}/appearance`} className="underline">
            Appearance
          </Link>
          .
        </>
      }
    >
      <input id="p-motd" className={input} value={values.motd} maxLength={MOTD_RAW_MAX} onChange={(e) => set('motd', e.target.value)} />
    </Labelled>
  );
}

/** Choices of a select: value and what it is called. */
const choices = {
  gamemode: [
    ['survival', 'Survival'],
    ['creative', 'Creative'],
    ['adventure', 'Adventure'],
    ['spectator', 'Spectator'],
  ],
  difficulty: [
    ['peaceful', 'Peaceful'],
    ['easy', 'Easy'],
    ['normal', 'Normal'],
    ['hard', 'Hard'],
  ],
  'level-type': [
    ['default', 'Default'],
    ['flat', 'Flat'],
  ],
} as const;

function Choice<K extends keyof typeof choices>({
  id,
  label,
  name,
  values,
  set,
}: Omit<PartProps, 'errors'> & { id: string; label: string; name: K }) {
  return (
    <Labelled id={id} label={label}>
      <select id={id} className={input} value={values[name]} onChange={(e) => set(name, e.target.value as ServerProperties[K])}>
        {choices[name].map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

function WorldFields({ values, set, errors, playerSlots }: PartProps & { playerSlots: number }) {
  return (
    <div className="grid gap-5 sm:grid-cols-2">
      <Labelled id="p-max" label="Max players" hint={`Up to ${playerSlots} on this server’s plan.`} error={errors['max-players']}>
        <input
          id="p-max"
          type="number"
          min={1}
          max={playerSlots}
          className={input}
          value={values['max-players']}
          onChange={(e) => set('max-players', Number(e.target.value))}
        />
      </Labelled>
      <Labelled id="p-view" label="View distance (chunks)" error={errors['view-distance']}>
        <input
          id="p-view"
          type="number"
          min={2}
          max={32}
          className={input}
          value={values['view-distance']}
          onChange={(e) => set('view-distance', Number(e.target.value))}
        />
      </Labelled>
      <Choice id="p-mode" label="Game mode" name="gamemode" values={values} set={set} />
      <Choice id="p-difficulty" label="Difficulty" name="difficulty" values={values} set={set} />
      <Choice id="p-type" label="World type" name="level-type" values={values} set={set} />
      <Labelled id="p-seed" label="World seed" error={errors['level-seed']}>
        <input
          id="p-seed"
          className={input}
          value={values['level-seed']}
          inputMode="numeric"
          onChange={(e) => set('level-seed', e.target.value)}
          placeholder="Random"
        />
      </Labelled>
    </div>
  );
}

function PlayerOptions({ serverId, values, set, errors }: PartProps & { serverId: string }) {
  // Spawn protection and the nether exist on Java servers only; the API sends them only for those.
  const javaOnly = values['spawn-protection'] !== undefined;
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-medium text-slate-700">Players</legend>
      <label className="flex items-start gap-2">
        <input type="checkbox" className="mt-1" checked={values.pvp} onChange={(e) => set('pvp', e.target.checked)} />
        <span>
          PvP <span className="block text-xs text-slate-500">Players can hurt each other.</span>
        </span>
      </label>
      <label className="flex items-start gap-2">
        <input type="checkbox" className="mt-1" checked={values['white-list']} onChange={(e) => set('white-list', e.target.checked)} />
        <span>
          Whitelist
          <span className="block text-xs text-slate-500">
            Only players on the whitelist (and operators) can join. Manage it on the{' '}
            <Link to={`/servers/${encodeURIComponent(serverId)}/players`} className="text-brand-700 underline">
              Players
            </Link>{' '}
            page, where it also changes a running server at once.
          </span>
        </span>
      </label>
      {javaOnly ? (
        <JavaOptions values={values} set={set} errors={errors} />
      ) : (
        <p className="text-xs text-slate-500">
          The built-in runtime has no fixed spawn and no nether portals, so spawn protection and the nether are settings of Java servers
          only.
        </p>
      )}
    </fieldset>
  );
}

function JavaOptions({ values, set, errors }: PartProps) {
  return (
    <>
      <label className="flex items-start gap-2">
        <input
          type="checkbox"
          className="mt-1"
          checked={values['allow-nether'] ?? true}
          onChange={(e) => set('allow-nether', e.target.checked)}
        />
        <span>
          Allow the nether <span className="block text-xs text-slate-500">Nether portals take players there.</span>
        </span>
      </label>
      <Labelled
        id="p-spawn"
        label="Spawn protection (blocks)"
        hint="Players who are not operators cannot break or place blocks this close to the spawn; 0 turns it off."
        error={errors['spawn-protection']}
      >
        <input
          id="p-spawn"
          type="number"
          min={0}
          max={64}
          className={`${input} sm:max-w-40`}
          value={values['spawn-protection']}
          onChange={(e) => set('spawn-protection', Number(e.target.value))}
        />
      </Labelled>
    </>
  );
}
