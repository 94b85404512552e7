import { endpoints } from '@spawnpoint/contracts';
import { useParams } from 'react-router';
import { EndpointView } from '../components/endpoint-view.tsx';
import { PropertiesForm } from '../components/properties/properties-form.tsx';
import { ServerSettings } from '../components/properties/server-settings.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { pageMeta } from '../lib/meta.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-properties', 'Settings of your Minecraft server.');

export default function ServerPropertiesPage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const properties = useEndpoint(
    endpoints.properties,
    { params: { serverId: id } },
    { enabled: load.status === 'ready', failureMessage: 'The settings could not be loaded. Please reload the page.' },
  );
  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' ? (
        <>
          <EndpointView load={properties.load} loading="Loading…" className="">
            {(loaded) => (
              <PropertiesForm
                serverId={id}
                loaded={loaded}
                playerSlots={load.server.playerSlots}
                running={load.state === 'online'}
                onSaved={properties.set}
              />
            )}
          </EndpointView>
          <ServerSettings id={id} server={load.server} />
        </>
      ) : null}
    </ServerShell>
  );
}
