import { request } from 'node:http';
import type { InstanceToolSpec } from '#web/tools/instanceTools/instanceToolSpec.ts';

/**
 * A tiny tool for the supervisor's tests: a node HTTP server on the launch's socket or port that
 * answers only with its token, telling what it sees (its environment's names, user, folder). It
 * exits with code 3 at once when FAKE_TOOL_FAIL is set, like a tool that cannot start; with
 * FAKE_TOOL_PLANT it links its socket's name to that path instead of listening (a tenant's attack).
 */
const PROGRAM = `
const http = require('node:http');
console.log('fake tool starting');
if (process.env.FAKE_TOOL_FAIL) process.exit(3);
// A tenant's tool that puts a link to another socket where web expects its own (issue 24).
if (process.env.FAKE_TOOL_PLANT) {
  require('node:fs').symlinkSync(process.env.FAKE_TOOL_PLANT, process.env.TOOL_SOCKET);
  setInterval(() => {}, 60000);
}
const server = http.createServer((req, res) => {
  if (req.headers['x-tool-token'] !== process.env.TOOL_TOKEN) { res.statusCode = 403; return res.end(); }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ url: req.url, env: Object.keys(process.env), uid: process.getuid(), cwd: process.cwd() }));
});
if (!process.env.FAKE_TOOL_PLANT) server.listen(process.env.TOOL_SOCKET || Number(process.env.TOOL_PORT), process.env.TOOL_SOCKET ? undefined : '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

export function fakeToolSpec(listen: 'socket' | 'port' = 'socket', env: Record<string, string> = {}): InstanceToolSpec {
  return {
    kind: 'editor',
    label: 'The fake tool',
    available: () => null,
    listen,
    stripBasePath: true,
    readyPath: '/ready',
    injectHeaders: (token) => ({ 'x-tool-token': token }),
    command: (launch) => ({
      file: process.execPath,
      args: ['-e', PROGRAM],
      env: { TOOL_TOKEN: launch.token, TOOL_SOCKET: listen === 'socket' ? launch.socketPath : '', TOOL_PORT: String(launch.port), ...env },
    }),
  };
}

export interface FakeToolAnswer {
  url: string;
  env: string[];
  uid: number;
  cwd: string;
}

/** What the fake tool answers at `path`, asked with `token`. */
export function askFakeTool(target: string | { socketPath: string }, token: string, path = '/'): Promise<{ status: number; body: FakeToolAnswer | null }> {
  const where = typeof target === 'string' ? { host: '127.0.0.1', port: Number(new URL(target).port) } : { socketPath: target.socketPath };
  return new Promise((resolve, reject) => {
    // A connection of its own: one kept alive from an earlier request would hide where this one goes.
    const req = request({ ...where, path, headers: { 'x-tool-token': token }, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as FakeToolAnswer) : null }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
