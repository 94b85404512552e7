import { describe, expect, it } from 'vitest';
import { errorCatalogue, errorCodes, errorStatus, isErrorCode } from './errors.ts';

const spec = [
  'RATE_LIMIT',
  'INVALID_INPUT',
  'INVALID_STATE',
  'NO_PERMISSION',
  'TEMPORARILY_DISABLED',
  'INVALID_CREDENTIALS',
  'SERVER_NAME_ALREADY_IN_USE',
  'SERVER_LIMIT_REACHED',
  'BILLING_INFO_REQUIRED',
  'INSUFFICIENT_BALANCE',
  'TWOFACTOR_REQUIRED',
  'INVALID_TWOFACTOR',
  'ACCOUNT_LOCKED',
  'EMAIL_ADDRESS_REQUIRED',
  'NO_SERVERS_AVAILABLE',
  'SERVER_PLAY_TIME_REACHED',
  'CONTENT_RESTRICTED',
  'EMAIL_ALREADY_REGISTERED',
  'SUBSCRIPTION_ACTIVE',
  'DISK_LIMIT',
  'NOT_AUTHENTICATED',
  'SERVER_LOCKED',
];

describe('error catalogue', () => {
  it('holds every code the API answers with (docs/api.md), NOT_FOUND, NODE_UNAVAILABLE and INTERNAL_ERROR among them', () => {
    expect([...errorCodes].sort()).toEqual([...spec, 'NOT_FOUND', 'NODE_UNAVAILABLE', 'INTERNAL_ERROR'].sort());
  });

  it('gives every code an English sentence', () => {
    for (const code of errorCodes) expect(errorCatalogue[code].message).toMatch(/^[A-Z].*\.$/);
  });

  it('maps each code to its HTTP status', () => {
    expect(errorStatus('INVALID_INPUT')).toBe(400);
    expect(errorStatus('NOT_AUTHENTICATED')).toBe(401);
    expect(errorStatus('NO_PERMISSION')).toBe(403);
    expect(errorStatus('NOT_FOUND')).toBe(404);
    expect(errorStatus('INVALID_STATE')).toBe(409);
    expect(errorStatus('RATE_LIMIT')).toBe(429);
    expect(errorStatus('INTERNAL_ERROR')).toBe(500);
  });

  it('tells an unreachable node (502) apart from no room on any node (503)', () => {
    expect(errorStatus('NODE_UNAVAILABLE')).toBe(502);
    expect(errorStatus('NO_SERVERS_AVAILABLE')).toBe(503);
    expect(errorCatalogue.NODE_UNAVAILABLE.message).not.toMatch(/capacity/);
  });

  it('answers what the user did wrong with a 4xx', () => {
    const userCaused = errorCodes.filter(
      (c) => !['INTERNAL_ERROR', 'TEMPORARILY_DISABLED', 'NO_SERVERS_AVAILABLE', 'NODE_UNAVAILABLE'].includes(c),
    );
    for (const code of userCaused) expect(errorStatus(code), code).toBeLessThan(500);
  });

  it('recognises codes', () => {
    expect(isErrorCode('RATE_LIMIT')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});
