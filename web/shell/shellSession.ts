import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import type { ReadModel } from '#projections/readModel.ts';
import type { ShellCloseReason, ShellRuntime } from '#services/instances/domain/instance.ts';
import { refuseShell } from '#services/instances/domain/instanceShell.ts';
import type { Logger } from '#shared/log.ts';
import { CommandRefused, type ControlPlaneClient } from '../controlPlaneClient.ts';
import { idleTimer, systemClock, type Clock, type IdleTimer } from './idleTimer.ts';
import { parseClientMessage, serverMessage, type TerminalSize } from './shellMessages.ts';
import { ShellUnavailable, type Terminal } from './terminal.ts';

/**
 * Opens the terminal of one instance on its runtime (processShell.ts, dockerShell.ts): checks what
 * the shell needs, calls `recordOpened` (which throws ShellUnavailable when the session may not
 * be recorded), then starts the shell.
 */
export type OpenTerminal = (instance: { slug: string; erpVersion: string }, runtime: ShellRuntime, size: TerminalSize, recordOpened: () => Promise<void>) => Promise<Terminal>;

export interface ShellSessionDeps {
  readModel: ReadModel;
  controlPlane: Pick<ControlPlaneClient, 'openShellSession' | 'closeShellSession'>;
  openTerminal: OpenTerminal;
  idleMs: number;
  logger: Logger;
  clock?: Clock;
}

export interface ShellUser {
  user_id: string;
  email: string;
}

/** A live session, as web's shutdown sees it. */
export interface LiveShell {
  /** Ends the session, telling the user why when `text` is given, and records the close. */
  end(reason: ShellCloseReason, text?: string): Promise<void>;
}

/** Unsent output bytes past which the pty is no longer read until the browser catches up. */
const OUTPUT_BACKLOG = 1024 * 1024;

const minutesText = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);

/**
 * One web shell, from the WebSocket's first frame to its close: the session is recorded as opened
 * (a refusal or a failure to record keeps the shell from starting, and the terminal says why), the
 * terminal's bytes go both ways, input resets the idle timer, and whatever ends it (the user, the
 * idle timer, the terminal, web stopping) is recorded once with how long it lasted. Keystrokes are
 * passed on and never kept.
 */
export async function runShellSession(deps: ShellSessionDeps, ws: WebSocket, slug: string, user: ShellUser, size: TerminalSize, live: Set<LiveShell>): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const notice = (text: string) => ws.readyState === ws.OPEN && ws.send(serverMessage({ type: 'notice', text }));
  const refuse = (text: string) => {
    if (ws.readyState === ws.OPEN) ws.send(serverMessage({ type: 'closed', reason: 'refused', text }));
    ws.close(1000);
  };
  // The user may leave, type or resize while the session is being recorded and the terminal
  // started: frames are kept until the terminal takes them (ws drops those nobody listens for).
  let gone = false;
  ws.once('close', () => {
    gone = true;
  });
  const early: string[] = [];
  let receive = (text: string) => void early.push(text);
  ws.on('message', (data, isBinary) => {
    if (!isBinary) receive(data.toString());
  });

  const instance = await getInstance(deps.readModel, slug);
  if (!instance) return refuse(`There is no instance ${slug}.`);
  // The decider's rule, checked first on the read model so the message is the same whatever is missing (a folder, a container).
  const refusal = refuseShell(instance);
  if (refusal) return refuse(`The shell was not opened: ${refusal}.`);
  const runtime: ShellRuntime = instance.runtime === 'docker' ? 'docker' : 'process';
  const sessionId = randomUUID();
  // Recorded by the terminal's opener once it found what to open the shell in (the folder, a
  // running container) and before it starts the shell: nothing is recorded for a shell that
  // could not be, and no shell runs unrecorded.
  let openedAt: number | undefined;
  const recordOpened = async () => {
    try {
      await deps.controlPlane.openShellSession(user.user_id, slug, sessionId, runtime);
    } catch (error) {
      if (error instanceof CommandRefused) throw new ShellUnavailable(`The shell was not opened: ${error.message}.`);
      deps.logger.error({ err: error, slug }, 'a web shell could not be recorded as opened');
      throw new ShellUnavailable('The shell was not opened: Forja could not record the session (the control-plane did not answer). Try again shortly.');
    }
    openedAt = clock.now();
  };
  const recordClosed = (reason: ShellCloseReason) =>
    deps.controlPlane.closeShellSession(user.user_id, slug, sessionId, clock.now() - (openedAt ?? clock.now()), reason).then(
      () => undefined,
      (error: unknown) => deps.logger.error({ err: error, slug, sessionId, reason }, 'the end of a web shell could not be recorded'),
    );

  let terminal: Terminal;
  try {
    terminal = await deps.openTerminal({ slug, erpVersion: instance.erp_version }, runtime, size, recordOpened);
  } catch (error) {
    if (!(error instanceof ShellUnavailable)) deps.logger.error({ err: error, slug }, 'a web shell could not start');
    if (openedAt !== undefined) await recordClosed('error');
    return refuse(error instanceof ShellUnavailable ? error.message : 'The shell could not start; the server log says why.');
  }
  let ended = false;
  // Set once the terminal runs; the session's end stops it.
  const idle: { timer?: IdleTimer } = {};
  const session: LiveShell = {
    async end(reason, text) {
      if (ended) return;
      ended = true;
      if (text && ws.readyState === ws.OPEN) ws.send(serverMessage({ type: 'closed', reason, text }));
      live.delete(session);
      idle.timer?.stop();
      terminal.close();
      if (ws.readyState === ws.OPEN) ws.close(1000);
      await recordClosed(reason);
    },
  };
  live.add(session);
  const closed = (reason: ShellCloseReason, text: string) => session.end(reason, text);

  if (gone) return session.end('user');
  const started = terminal;
  // A program writing faster than the browser reads (cat of a large file) must not fill web's
  // memory: past OUTPUT_BACKLOG unsent bytes the pty is not read, so the program waits instead.
  let paused = false;
  started.onData((chunk) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true }, () => {
      if (paused && ws.bufferedAmount < OUTPUT_BACKLOG / 2) {
        paused = false;
        started.resume();
      }
    });
    if (!paused && ws.bufferedAmount > OUTPUT_BACKLOG) {
      paused = true;
      started.pause();
    }
  });
  started.onExit((code) => void closed('user', `The shell exited${code === null ? '' : ` with code ${code}`}.`));
  const timer = idleTimer(deps.idleMs, () => void closed('idle', `Closed after ${minutesText(deps.idleMs)} without input.`), clock);
  idle.timer = timer;
  receive = (text) => {
    const message = parseClientMessage(text);
    if (message?.type === 'input') {
      timer.touch();
      started.write(message.data);
    } else if (message?.type === 'resize') started.resize(message.cols, message.rows);
  };
  for (const text of early.splice(0)) receive(text);
  ws.on('close', () => void session.end('user'));
  ws.on('error', () => void session.end('error'));
  notice(`Shell on ${slug} (${runtime === 'docker' ? 'in its container' : 'in its folder'}); it closes after ${minutesText(deps.idleMs)} without input.`);
}
