import { describe, expect, it } from 'vitest';
import { billingInfo, countryList, countryName } from './money.ts';

const info = (country: string) => billingInfo.safeParse({ name: 'Alex Doe', addressLine1: '1 Main St', city: 'Springfield', country });

describe('the billing form’s countries', () => {
  it('lists every country once, by its current code only', () => {
    const list = countryList();
    const names = list.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const codes = list.map((c) => c.code);
    for (const old of ['UK', 'DY', 'HV', 'NH', 'VD', 'YD', 'RH', 'DD', 'SU', 'YU', 'ZR', 'BU', 'TP']) expect(codes).not.toContain(old);
    for (const current of ['GB', 'BJ', 'BF', 'VU', 'VN', 'YE', 'ZW', 'DE', 'RU', 'RS', 'CD', 'MM', 'TL', 'XK'])
      expect(codes).toContain(current);
    // Unions, pseudo-locales and reserved codes are no country a bill goes to.
    for (const notOne of ['EU', 'UN', 'ZZ', 'XA', 'EZ', 'QO']) expect(codes).not.toContain(notOne);
    expect(countryName('UK')).toBeNull();
  });

  it('saves a withdrawn code as today’s (UK → GB) and refuses what is no country', () => {
    const uk = info('uk');
    expect(uk.success && uk.data.country).toBe('GB');
    expect(info('DE').success && info('DE').data?.country).toBe('DE');
    for (const bad of ['EU', 'ZZ', 'QQ', 'G', 'GBR', '']) {
      const result = info(bad);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe('Choose a country.');
    }
  });
});
