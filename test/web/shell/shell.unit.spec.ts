import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { idleTimer, type Clock } from '#web/shell/idleTimer.ts';
import { durationMs } from '#shared/config/duration.ts';
import { loadShellSettings } from '#web/shell/shell.settings.ts';
import { DEFAULT_SIZE, initialSize, MAX_INPUT_CHARS, parseClientMessage } from '#web/shell/shellMessages.ts';
import { sameOrigin } from '#web/shell/shellOrigin.ts';

/** A clock the test moves: timers fire when `advance` passes their time. */
function manualClock(): Clock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let timers: Array<{ at: number; callback: () => void; id: number }> = [];
  let ids = 0;
  return {
    now: () => now,
    setTimeout: (callback, ms) => {
      const id = ++ids;
      timers.push({ at: now + ms, callback, id });
      return id;
    },
    clearTimeout: (handle) => {
      timers = timers.filter((timer) => timer.id !== handle);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const next = timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        timers = timers.filter((timer) => timer !== next);
        now = next.at;
        next.callback();
      }
      now = until;
    },
    pending: () => timers.length,
  };
}

describe('web shell messages (web/shell/shellMessages.ts)', () => {
  it('reads input and resizes, and nothing else', () => {
    expect(parseClientMessage('{"type":"input","data":"ls -la\\r"}')).to.deep.equal({ type: 'input', data: 'ls -la\r' });
    expect(parseClientMessage('{"type":"resize","cols":120,"rows":32}')).to.deep.equal({ type: 'resize', cols: 120, rows: 32 });
    for (const wrong of ['', 'ls', 'null', '[]', '{"type":"input"}', '{"type":"input","data":3}', '{"type":"exec","data":"x"}', '{"type":"resize","cols":"80","rows":24}']) {
      expect(parseClientMessage(wrong), wrong).to.equal(null);
    }
  });

  it('refuses sizes no screen has and inputs beyond one paste chunk', () => {
    expect(parseClientMessage('{"type":"resize","cols":1,"rows":24}')).to.equal(null);
    expect(parseClientMessage('{"type":"resize","cols":80,"rows":0}')).to.equal(null);
    expect(parseClientMessage('{"type":"resize","cols":80.5,"rows":24}')).to.equal(null);
    expect(parseClientMessage('{"type":"resize","cols":100000,"rows":24}')).to.equal(null);
    expect(parseClientMessage(JSON.stringify({ type: 'input', data: 'x'.repeat(MAX_INPUT_CHARS) }))).to.not.equal(null);
    expect(parseClientMessage(JSON.stringify({ type: 'input', data: 'x'.repeat(MAX_INPUT_CHARS + 1) }))).to.equal(null);
  });

  it('takes the first size from the socket URL, or the default', () => {
    expect(initialSize('/instances/a/shell/socket?cols=132&rows=43')).to.deep.equal({ cols: 132, rows: 43 });
    expect(initialSize('/instances/a/shell/socket')).to.deep.equal(DEFAULT_SIZE);
    expect(initialSize('/instances/a/shell/socket?cols=abc&rows=43')).to.deep.equal(DEFAULT_SIZE);
    expect(initialSize('/instances/a/shell/socket?cols=132')).to.deep.equal(DEFAULT_SIZE);
  });
});

describe('web shell idle timer (web/shell/idleTimer.ts)', () => {
  it('fires once after the timeout without input', () => {
    const clock = manualClock();
    let fired = 0;
    idleTimer(15 * 60_000, () => fired++, clock);
    clock.advance(15 * 60_000 - 1);
    expect(fired).to.equal(0);
    clock.advance(1);
    expect(fired).to.equal(1);
    clock.advance(60 * 60_000);
    expect(fired).to.equal(1);
  });

  it('counts from the last input, keeping one timer', () => {
    const clock = manualClock();
    let firedAt: number | undefined;
    const timer = idleTimer(1000, () => (firedAt = clock.now()), clock);
    clock.advance(600);
    timer.touch();
    clock.advance(300);
    timer.touch();
    expect(clock.pending()).to.equal(1);
    clock.advance(5000);
    expect(firedAt).to.equal(1900);
  });

  it('never fires once stopped', () => {
    const clock = manualClock();
    let fired = false;
    idleTimer(1000, () => (fired = true), clock).stop();
    clock.advance(10_000);
    expect(fired).to.equal(false);
    expect(clock.pending()).to.equal(0);
  });
});

describe('web shell Origin check (web/shell/shellOrigin.ts)', () => {
  it('lets in web’s own page only', () => {
    expect(sameOrigin('http://127.0.0.1:8081', '127.0.0.1:8081', undefined)).to.equal(true);
    expect(sameOrigin('https://forja.example.com', 'forja.example.com', undefined)).to.equal(true);
    expect(sameOrigin('http://evil.example', '127.0.0.1:8081', undefined)).to.equal(false);
    expect(sameOrigin('http://127.0.0.1:9999', '127.0.0.1:8081', undefined)).to.equal(false);
    expect(sameOrigin(undefined, '127.0.0.1:8081', undefined)).to.equal(false);
    expect(sameOrigin('null', '127.0.0.1:8081', undefined)).to.equal(false);
    expect(sameOrigin('file://', '127.0.0.1:8081', undefined)).to.equal(false);
  });

  it('with FORJA_PUBLIC_URL, wants exactly that origin', () => {
    expect(sameOrigin('https://forja.example.com', 'internal:8081', 'https://forja.example.com')).to.equal(true);
    expect(sameOrigin('http://forja.example.com', 'forja.example.com', 'https://forja.example.com')).to.equal(false);
  });
});

describe('web shell settings and vendored files', () => {
  it('closes idle shells after 15 minutes unless FORJA_SHELL_IDLE says otherwise', () => {
    expect(durationMs(loadShellSettings({}).FORJA_SHELL_IDLE)).to.equal(15 * 60_000);
    expect(durationMs(loadShellSettings({ FORJA_SHELL_IDLE: '90s' }).FORJA_SHELL_IDLE)).to.equal(90_000);
    expect(durationMs(loadShellSettings({ FORJA_SHELL_IDLE: '2h' }).FORJA_SHELL_IDLE)).to.equal(7_200_000);
    expect(() => loadShellSettings({ FORJA_SHELL_IDLE: '15' })).to.throw(/FORJA_SHELL_IDLE/);
  });

  it('serves xterm.js exactly as the pinned npm packages ship it', () => {
    const require = createRequire(import.meta.url);
    const vendor = (name: string) => readFileSync(fileURLToPath(new URL(`../../../web/public/vendor/${name}`, import.meta.url)));
    const shipped = (pkg: string, file: string) => {
      const manifest = require(`${pkg}/package.json`) as { version: string };
      return { version: manifest.version, bytes: readFileSync(require.resolve(`${pkg}/${file}`)) };
    };
    for (const [name, pkg, file] of [
      ['xterm', '@xterm/xterm', 'lib/xterm.js'],
      ['xterm', '@xterm/xterm', 'css/xterm.css'],
      ['addon-fit', '@xterm/addon-fit', 'lib/addon-fit.js'],
    ] as const) {
      const { version, bytes } = shipped(pkg, file);
      expect(vendor(`${name}-${version}.${file.split('.').pop()}`).equals(bytes), `${pkg} ${file}`).to.equal(true);
    }
  });
});
