import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { instancePlan, type InstanceEvent } from '#services/instances/domain/instance.ts';
import { instanceHistory, PROVISION_FACTS } from './instanceHistory.ts';
import type { EventDraft } from './projectionSpec.ts';

/** A stand-in ERP on 127.0.0.1: answers who it is, the Host it was asked for and the body it got; echoes WebSocket messages. */
export async function tinyErp(name: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>${name}</title><h1>ERP ${name}</h1><p id="seen">${req.method} ${req.url} host=${req.headers.host} body=${Buffer.concat(chunks).toString()}</p>`);
    });
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, req) => socket.on('message', (data) => socket.send(`${name} ${req.url} ${String(data)}`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** An HTTP request to 127.0.0.1:`port` with a chosen Host: no DNS involved. */
export function requestWithHost(port: number, host: string, { method = 'GET', path = '/', body, headers = {} }: { method?: string; path?: string; body?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Instance histories appended as the control-plane and executor would have written them, each
 * append waited for in instance_detail: for router tests that need no executor.
 */
export function instanceRecorder(store: EventStore, readModel: ReadModel) {
  async function record(drafts: EventDraft[]): Promise<void> {
    const stream = drafts[0]!.stream!;
    const version = (await store.readStream(stream)).version;
    const metadata = { correlationId: randomUUID(), causationId: randomUUID(), actor: 'user-ana', at: new Date().toISOString() };
    const result = await store.appendToStream<InstanceEvent>(stream, drafts.map((draft) => ({ type: draft.type, data: draft.data, metadata }) as never), { expectedVersion: version });
    await waitForPosition(readModel, 'instance_detail', result.lastGlobalPosition!);
  }
  return {
    record,
    /** A development instance provisioned and running its ERP at `url`. */
    /** `geventUrl`: its ERP runs workers, with a gevent process there (`/websocket`). */
    async running(slug: string, url: string, geventUrl?: string) {
      const history = instanceHistory({ slug, name: slug });
      const job = randomUUID();
      const steps = instancePlan('provision', false).map((step) => step.type);
      const gevent = geventUrl ? { geventPort: 21001, geventUrl } : {};
      await record([history.requested(job), ...history.ranJob(job, steps, 'provision', 'running', { facts: { ...PROVISION_FACTS, start: { port: 21000, url, ...gevent } } })]);
      return history;
    },
    /** Puts a running instance to sleep as the idle sweep and the executor do. */
    async sleeping(history: ReturnType<typeof instanceHistory>) {
      const job = randomUUID();
      await record([history.action('sleep', job, { reason: 'idle' }), ...history.ranJob(job, instancePlan('sleep', true).map((step) => step.type), 'sleep', 'sleeping')]);
    },
    /** The executor's part of a start: the job runs the ERP at `url` again. */
    async started(history: ReturnType<typeof instanceHistory>, jobId: string, url: string) {
      await record(history.ranJob(jobId, ['start', 'health_check'], 'start', 'running', { facts: { start: { port: 21000, url } } }));
    },
  };
}
