import type { ProxyRoute, ProxyRouteEvent, ProxyRoutesEvent } from '@spawnpoint/contracts';

type Listener = (route: ProxyRoute | undefined) => void;

/**
 * The proxy's copy of the routing table the API pushes: name → server, node, port, state, slots. Lookups
 * are in memory; nothing here asks the API or the database per connection. Connections held while a
 * server wakes listen for changes of its name.
 */
export class RouteTable {
  private routes = new Map<string, ProxyRoute>();
  private listeners = new Map<string, Set<Listener>>();
  private domain: string | null = null;

  /** The play domain, once the API has sent the table (null before: the proxy cannot route yet). */
  playDomain(): string | null {
    return this.domain;
  }

  get(name: string): ProxyRoute | undefined {
    return this.routes.get(name);
  }

  get size(): number {
    return this.routes.size;
  }

  /** The whole table (on every connect to the API); replaces the old one and tells every waiting connection. */
  replace(event: ProxyRoutesEvent): void {
    const old = this.routes;
    this.domain = event.playDomain;
    this.routes = new Map(event.routes.map((route) => [route.name, route]));
    for (const name of new Set([...old.keys(), ...this.routes.keys()])) this.notify(name);
  }

  apply(event: ProxyRouteEvent): void {
    if (event.route) this.routes.set(event.name, event.route);
    else this.routes.delete(event.name);
    this.notify(event.name);
  }

  /**
   * Resolves with the route once `ok` accepts it (at once if it does now), or with null after `timeoutMs`
   * or when `signal` aborts (the player left).
   */
  waitFor(
    name: string,
    ok: (route: ProxyRoute | undefined) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ route: ProxyRoute | undefined } | null> {
    const now = this.routes.get(name);
    if (ok(now)) return Promise.resolve({ route: now });
    return new Promise((resolve) => {
      const set = this.listeners.get(name) ?? new Set<Listener>();
      this.listeners.set(name, set);
      const done = (result: { route: ProxyRoute | undefined } | null) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        set.delete(listener);
        if (set.size === 0 && this.listeners.get(name) === set) this.listeners.delete(name);
        resolve(result);
      };
      const listener: Listener = (route) => {
        if (ok(route)) done({ route });
      };
      const aborted = () => done(null);
      const timer = setTimeout(() => done(null), Math.max(0, timeoutMs));
      set.add(listener);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  private notify(name: string): void {
    const set = this.listeners.get(name);
    if (!set) return;
    const route = this.routes.get(name);
    for (const listener of [...set]) listener(route);
  }
}
