import { createHash } from 'node:crypto';
import { endpointList, endpoints, errorCatalogue, type Endpoint } from '@spawnpoint/contracts';
import type { Route } from './http/route.ts';
import { pageHeaders } from './http/security-headers.ts';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function operation(endpoint: Endpoint): JsonSchema {
  const parameters: JsonSchema[] = [...endpoint.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (endpoint.query) {
    const query = schemaOf(endpoint.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
  }
  const success = {
    type: 'object',
    required: ['status', 'result'],
    properties: { status: { const: 'SUCCESS' }, result: endpoint.result ? schemaOf(endpoint.result, 'output') : {} },
  };
  const op: JsonSchema = {
    operationId: `${endpoint.method.toLowerCase()}${openApiPath(endpoint.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string = '') => c.toUpperCase())}`,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    security: { public: [], session: [{ session: [] }], operator: [{ operatorToken: [] }], metrics: [{ metricsToken: [] }] }[
      endpoint.access
    ],
    parameters,
    responses: {
      '200': { description: 'SUCCESS', content: { 'application/json': { schema: success } } },
      default: {
        description: 'A failure of the error catalogue',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
      },
    },
  };
  if (endpoint.permission) op['x-permission'] = endpoint.permission;
  if (endpoint.body) op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(endpoint.body, 'input') } } };
  return op;
}

/** The OpenAPI 3.1 document of the API, from the endpoint table and zod schemas in contracts. */
export function openApiDocument(publicUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const endpoint of endpointList) {
    const path = openApiPath(endpoint.path);
    paths[path] ??= {};
    paths[path][endpoint.method.toLowerCase()] = operation(endpoint);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Spawnpoint API',
      version: '1',
      description:
        'Every answer is {"status":"SUCCESS","result":…} or {"status":"<CODE>","message":"…","fields"?:{…}}. State-changing requests need a JSON or multipart body from our own origin (CSRF rule).',
    },
    servers: [{ url: publicUrl }],
    paths,
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'sp_session' },
        operatorToken: { type: 'http', scheme: 'bearer' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
      },
      schemas: {
        Failure: {
          type: 'object',
          required: ['status', 'message'],
          properties: {
            status: { enum: Object.keys(errorCatalogue) },
            message: { type: 'string' },
            fields: { type: 'object', additionalProperties: { type: 'string' } },
            details: { type: 'string', description: 'INTERNAL_ERROR only, and only outside production: what went wrong.' },
          },
        },
      },
    },
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A plain page listing the endpoints (no script, so the API's strict CSP holds). */
/**
 * The docs page's only style, allowed by its hash (its policy allows nothing else): the table fills the
 * width; on a phone (360 px) a cell may break anywhere (paths, permissions, a setting named in a summary),
 * so the four columns wrap instead of pushing the page sideways.
 */
const DOCS_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem}' +
  'table{border-collapse:collapse;width:100%}' +
  'th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid #ddd}' +
  'th,td:first-child{white-space:nowrap}' +
  '@media (max-width:40rem){body{font-size:14px;padding:.5rem}th,td{padding:.3rem .25rem}td{overflow-wrap:anywhere}}';
const DOCS_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(DOCS_STYLE).digest('base64')}'; frame-ancestors 'none'; base-uri 'none'`;

function docsPage(): string {
  const rows = endpointList
    .map(
      (e) =>
        `<tr><td><code>${e.method}</code></td><td><code>${escapeHtml(openApiPath(e.path))}</code></td><td>${escapeHtml(e.summary)}</td><td>${e.access}${e.permission ? ` · <code>${escapeHtml(e.permission)}</code>` : ''}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Spawnpoint API</title><style>${DOCS_STYLE}</style></head>
<body><main><h1>Spawnpoint API</h1><p>The machine-readable document is <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p>
<table><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">What it does</th><th scope="col">Access</th></tr></thead><tbody>
${rows}
</tbody></table></main></body></html>`;
}

export function openApiRoutes(route: Route, publicUrl: string): void {
  let document: JsonSchema | null = null;
  route(endpoints.openApi, async ({ reply }) => reply.send((document ??= openApiDocument(publicUrl))));
  // A page, under /v1/ like the rest of the API: a page's headers, and revalidated like the site's pages.
  route(endpoints.docs, async ({ reply }) =>
    pageHeaders(reply, DOCS_CSP).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(docsPage()),
  );
}
