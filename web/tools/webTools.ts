import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler, Router } from 'express';
import { ruleFor, type Method } from '#shared/auth/authorizationTable.ts';
import type { WebContext } from '../context.ts';
import { routeAfter } from '../http/route.ts';
import { toolProxy, type ToolProxy } from './toolProxy.ts';

/** A tool web proxies under `prefix` (`/mails`): its routes are `${prefix}{/*path}` in the authorization table. */
export interface WebTool {
  prefix: string;
  proxy: ToolProxy;
}

/** Where web finds the shared tools. */
export interface ToolTargets {
  mailCatcherWebPort: number;
}

/** Spec §4.8's methods; HEAD is served by the GET route. */
const TOOL_METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export const toolPath = (tool: WebTool): string => `${tool.prefix}{/*path}`;

/** The shared tools: the mail catcher (maildev, serving its UI under /mails itself). Mail is not instance activity. */
export function webTools(ctx: WebContext, targets: ToolTargets): WebTool[] {
  // maildev's UI is AngularJS 1, which compiles its templates' expressions with `new Function`.
  const mailCatcher = toolProxy(ctx, { target: `http://127.0.0.1:${targets.mailCatcherWebPort}`, label: 'The mail catcher', scriptSources: ["'unsafe-eval'"] });
  return [{ prefix: '/mails', proxy: mailCatcher }];
}

/** Registers every tool's routes through the authorization table; `before` loads the session and its user. */
export function toolRoutes(router: Router, tools: WebTool[], before: RequestHandler[]): void {
  for (const tool of tools) for (const method of TOOL_METHODS) routeAfter(router, method, toolPath(tool), before, tool.proxy.handle);
}

/** The tool a request path belongs to, if any. */
export function toolFor(tools: WebTool[], url: string | undefined): WebTool | undefined {
  const path = (url ?? '').split('?', 1)[0] ?? '';
  return tools.find((tool) => path === tool.prefix || path.startsWith(`${tool.prefix}/`));
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The access the table gives a tool's WebSocket: that of its GET route. */
export const upgradeAccess = (tool: WebTool) => ruleFor('web', 'GET', toolPath(tool)).access;
