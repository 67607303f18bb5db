import { expect } from 'chai';
import { loadPadronSettings } from '#services/padron/padron.settings.ts';
import { ConfigError } from '#shared/config/config.ts';

describe('padrón settings: its pool and the download limits (issue 10, item 4)', () => {
  it('defaults to a small pool of its own, 32 downloads at once, 2 per address and a 30 s send timeout', () => {
    expect(loadPadronSettings({})).to.include({ FORJA_PADRON_POOL_MAX: 4, FORJA_PADRON_DOWNLOADS_MAX: 32, FORJA_PADRON_DOWNLOADS_PER_IP: 2, FORJA_PADRON_SEND_TIMEOUT_S: 30 });
  });

  it('reads them from the environment', () => {
    const env = { FORJA_PADRON_POOL_MAX: '6', FORJA_PADRON_DOWNLOADS_MAX: '100', FORJA_PADRON_DOWNLOADS_PER_IP: '5', FORJA_PADRON_SEND_TIMEOUT_S: '1' };
    expect(loadPadronSettings(env)).to.include({ FORJA_PADRON_POOL_MAX: 6, FORJA_PADRON_DOWNLOADS_MAX: 100, FORJA_PADRON_DOWNLOADS_PER_IP: 5, FORJA_PADRON_SEND_TIMEOUT_S: 1 });
  });

  const refused: Array<[string, string, RegExp]> = [
    ['FORJA_PADRON_POOL_MAX', '1', /^configuration: FORJA_PADRON_POOL_MAX must be >= 2 \(got "1"; /],
    ['FORJA_PADRON_DOWNLOADS_MAX', '0', /^configuration: FORJA_PADRON_DOWNLOADS_MAX must be >= 1 \(got "0"; /],
    ['FORJA_PADRON_DOWNLOADS_PER_IP', 'two', /^configuration: FORJA_PADRON_DOWNLOADS_PER_IP must be integer \(got "two"; /],
    ['FORJA_PADRON_SEND_TIMEOUT_S', '0.5', /^configuration: FORJA_PADRON_SEND_TIMEOUT_S must be integer \(got "0.5"; /],
  ];
  for (const [name, value, message] of refused) {
    it(`refuses ${name}=${value} with one line naming it`, () => {
      expect(() => loadPadronSettings({ [name]: value })).to.throw(ConfigError, message);
    });
  }
});
