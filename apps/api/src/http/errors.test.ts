import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError, installErrorHandling } from './errors.ts';

/** A bare app with the one error handler and routes that fail the ways real handlers can. */
async function appIn(production: boolean) {
  const app = Fastify({ logger: false });
  installErrorHandling(app, { production });
  app.get('/unexpected', async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  app.get('/ours', async () => {
    throw new ApiError('INTERNAL_ERROR');
  });
  app.get('/expected', async () => {
    throw new ApiError('INVALID_STATE', undefined, 'A backup of this server is already running.');
  });
  await app.ready();
  return app;
}

describe('INTERNAL_ERROR details (outside production, errors show their details)', () => {
  it('outside production an unexpected error carries its message and where it happened', async () => {
    const app = await appIn(false);
    const res = await app.inject({ method: 'GET', url: '/unexpected' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({ status: 'INTERNAL_ERROR', message: 'Something went wrong on our side. Please try again.' });
    expect(body.details).toContain('Error: connect ECONNREFUSED 127.0.0.1:5432');
    expect(body.details).toContain('errors.test.ts');
    expect((await app.inject({ method: 'GET', url: '/ours' })).json().details).toContain('errors.test.ts');
    await app.close();
  });

  it('in production nothing of the error leaves the process', async () => {
    const app = await appIn(true);
    for (const url of ['/unexpected', '/ours']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ status: 'INTERNAL_ERROR', message: 'Something went wrong on our side. Please try again.' });
    }
    await app.close();
  });

  it('an expected refusal has no details in either environment', async () => {
    for (const production of [false, true]) {
      const app = await appIn(production);
      expect((await app.inject({ method: 'GET', url: '/expected' })).json()).toEqual({
        status: 'INVALID_STATE',
        message: 'A backup of this server is already running.',
      });
      await app.close();
    }
  });
});
