import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { buildTestApp, buildTestAppWithAgent, ownerWithServer, requester } from './test/build-test-app.ts';

/**
 * What an operator sees: one request id from the caller through the API to the node's log, and the
 * Prometheus pages of the API and the node, each behind its own scraper token.
 */
const API_METRICS_TOKEN = 'api-scraper-token-'.padEnd(40, 'a');
const NODE_METRICS_TOKEN = 'node-scraper-token-'.padEnd(40, 'b');
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;

beforeAll(async () => {
  env = await buildTestAppWithAgent(
    { METRICS_TOKEN: API_METRICS_TOKEN },
    // JSON lines at debug: every request the node answers is logged with its id.
    { METRICS_TOKEN: NODE_METRICS_TOKEN, LOG_LEVEL: 'debug', LOG_FORMAT: 'json' },
  );
});
afterAll(async () => {
  await env.cleanup();
});

/** The node's JSON log lines of finished requests. */
function nodeRequests(): { reqId?: string; req?: { url?: string } }[] {
  return env.agent
    .output()
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { reqId?: string; msg?: string; req?: { url?: string } })
    .filter((line) => line.msg === 'request completed');
}

describe('request ids', () => {
  it("keep the caller's id from the API to the node, and every answer says its id", async () => {
    const send = requester(env.t.app);
    const { cookie, id } = await ownerWithServer(env.t, 'reqid');
    const traced = await send('GET', `/v1/server/${id}/files/list?path=/`, cookie, undefined, { 'x-request-id': 'support-case-4711' });
    expect(traced.json().status).toBe('SUCCESS');
    expect(traced.headers['x-request-id']).toBe('support-case-4711');
    const onNode = await until(
      () => nodeRequests().filter((line) => line.reqId === 'support-case-4711'),
      (found) => found.length > 0,
    );
    expect(onNode[0]?.req?.url).toContain(`/v1/servers/${id}/files`);

    // Without one (or with one that is not an id), the API makes its own, and the node logs that one.
    const own = await send('GET', `/v1/server/${id}/files/list?path=/`, cookie, undefined, { 'x-request-id': 'not an id; <script>' });
    const made = String(own.headers['x-request-id']);
    expect(made).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    await until(
      () => nodeRequests().some((line) => line.reqId === made),
      (seen) => seen,
    );
    const plain = await send('GET', '/v1/plans');
    expect(plain.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(plain.headers['x-request-id']).not.toBe(made);
  });
});

describe('/metrics', () => {
  it('does not exist where no scraper token is set', async () => {
    const t = await buildTestApp();
    try {
      const res = await requester(t.app)('GET', '/metrics', undefined, undefined, { authorization: 'Bearer anything' });
      expect(res.statusCode).toBe(404);
      expect(res.json().status).toBe('NOT_FOUND');
    } finally {
      await t.cleanup();
    }
  });

  it("answers only to the API's scraper token, with traffic by route, servers by state and the nodes", async () => {
    const send = requester(env.t.app);
    const { cookie, id } = await ownerWithServer(env.t, 'metric');
    await send('GET', `/v1/server/${id}`, cookie);

    expect((await send('GET', '/metrics')).json().status).toBe('NO_PERMISSION');
    expect((await send('GET', '/metrics', undefined, undefined, { authorization: `Bearer ${NODE_METRICS_TOKEN}` })).statusCode).toBe(403);
    const page = await send('GET', '/metrics', undefined, undefined, { authorization: `Bearer ${API_METRICS_TOKEN}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/plain');
    const text = page.body;
    // The route's pattern, never the server's id: one series per route.
    expect(text).toMatch(/^spawnpoint_api_http_requests_total\{method="GET",route="\/v1\/server\/:serverId",status="200"\} [1-9]/m);
    expect(text).not.toContain(id);
    expect(text).toMatch(/^spawnpoint_api_http_request_duration_seconds_count\{method="GET",route="\/v1\/server\/:serverId"\} [1-9]/m);
    expect(text).toMatch(
      /^spawnpoint_api_http_request_duration_seconds_bucket\{method="GET",route="\/v1\/server\/:serverId",le="\+Inf"\} [1-9]/m,
    );
    expect(text).toMatch(/^spawnpoint_servers\{state="offline"\} [1-9]/m);
    expect(text).toMatch(/^spawnpoint_servers\{state="online"\} 0$/m);
    expect(text).toMatch(/^spawnpoint_node_up\{node="test-node"\} 1$/m);
    expect(text).toMatch(/^spawnpoint_node_capacity\{node="test-node"\} 50$/m);
    expect(text).toMatch(/^spawnpoint_api_sockets\{kind="agent"\} 1$/m);
    expect(text).toMatch(/^spawnpoint_api_process_resident_memory_bytes [1-9]/m);
  });

  it("the node's page answers only to the node's scraper token (not the node token), with its games", async () => {
    const send = requester(env.t.app);
    const { cookie, id } = await ownerWithServer(env.t, 'nodemet');
    const nodeMetrics = (token: string) => fetch(`${env.agent.nodeConfig.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect((await nodeMetrics(env.agent.nodeConfig.token)).status).toBe(401);
    expect((await nodeMetrics(API_METRICS_TOKEN)).status).toBe(401);

    expect((await send('POST', `/v1/server/${id}/start`, cookie, {})).json().status).toBe('SUCCESS');
    const text = await until(
      async () => (await nodeMetrics(NODE_METRICS_TOKEN)).text(),
      (page) => new RegExp(`^spawnpoint_game_memory_bytes\\{server="${id}"\\} [1-9]`, 'm').test(page),
    );
    expect(text).toMatch(/^spawnpoint_agent_servers\{state="online"\} [1-9]/m);
    expect(text).toMatch(/^spawnpoint_agent_api_connected 1$/m);
    expect(text).toMatch(/^spawnpoint_agent_http_requests_total\{method="PUT",route="\/v1\/servers\/:serverId",status="200"\} [1-9]/m);
    await send('POST', `/v1/server/${id}/kill`, cookie, {});
  });
});
