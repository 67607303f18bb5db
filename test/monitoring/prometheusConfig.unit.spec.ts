import { expect } from 'chai';
import { parse } from 'yaml';
import { loopbackAddress, prometheusConfig } from '#services/monitoring/prometheusConfig.ts';

describe('the generated Prometheus configuration', () => {
  it('has one job per target on the given interval, /metrics unless a path is given', () => {
    const config = parse(
      prometheusConfig({
        scrapeIntervalS: 15,
        targets: [
          { job: 'control-plane', address: '127.0.0.1:8080' },
          { job: 'prometheus', address: '127.0.0.1:9090', path: '/monitoring/metrics' },
        ],
      }),
    ) as Record<string, unknown>;
    expect(config).to.deep.equal({
      global: { scrape_interval: '15s', scrape_timeout: '10s', evaluation_interval: '15s' },
      scrape_configs: [
        { job_name: 'control-plane', metrics_path: '/metrics', static_configs: [{ targets: ['127.0.0.1:8080'] }] },
        { job_name: 'prometheus', metrics_path: '/monitoring/metrics', static_configs: [{ targets: ['127.0.0.1:9090'] }] },
      ],
    });
  });

  it('sends the monitoring login to the targets that ask for it, its password read from a file', () => {
    const config = parse(
      prometheusConfig({
        scrapeIntervalS: 15,
        passwordFile: '/data/monitoring/scrape-password',
        targets: [
          { job: 'web', address: '127.0.0.1:8081' },
          { job: 'forja-instances', address: '127.0.0.1:40000', basicAuth: true },
        ],
      }),
    ) as { scrape_configs: Array<Record<string, unknown>> };
    expect(config.scrape_configs.map((scrape) => scrape['basic_auth'])).to.deep.equal([undefined, { username: 'forja', password_file: '/data/monitoring/scrape-password' }]);
    expect(() => prometheusConfig({ scrapeIntervalS: 15, targets: [{ job: 'prometheus', address: '127.0.0.1:9090', basicAuth: true }] })).to.throw(/no password file/);
  });

  it('keeps the scrape timeout within a short interval (Prometheus refuses one above it)', () => {
    const config = parse(prometheusConfig({ scrapeIntervalS: 2, targets: [] })) as { global: Record<string, string> };
    expect(config.global).to.deep.equal({ scrape_interval: '2s', scrape_timeout: '2s', evaluation_interval: '2s' });
  });

  it('scrapes a process listening on every address at loopback, and brackets IPv6', () => {
    expect(loopbackAddress('0.0.0.0', 8080)).to.equal('127.0.0.1:8080');
    expect(loopbackAddress('::', 8080)).to.equal('127.0.0.1:8080');
    expect(loopbackAddress('127.0.0.1', 8082)).to.equal('127.0.0.1:8082');
    expect(loopbackAddress('::1', 8082)).to.equal('[::1]:8082');
  });
});
