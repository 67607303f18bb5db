import { createHmac } from 'node:crypto';

/** The user name web sends local tools with their password. */
export const TOOL_USER = 'forja';

/**
 * The password a local tool (the mail catcher's web UI) asks on loopback, derived from the master
 * key as instance roles' passwords are: the process starting the tool and web, which adds it to
 * every request it lets through, compute the same one without sharing state.
 */
export const toolPassword = (masterKey: Buffer, tool: string): string => createHmac('sha256', masterKey).update(`forja local tool\0${tool}`).digest('base64url');

/** The Authorization header web adds for `tool`. */
export const toolAuthorization = (masterKey: Buffer, tool: string): string => `Basic ${Buffer.from(`${TOOL_USER}:${toolPassword(masterKey, tool)}`).toString('base64')}`;
