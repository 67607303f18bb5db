import { join } from 'node:path';

/** The mail catcher's folder under FORJA_DATA_DIR: maildev's mail and its web UI's socket, its account's alone (0700). */
export const MAIL_CATCHER_DIR = 'mailcatcher';
/** maildev's web UI listens here, not on a port: no local process but Forja reaches all caught mail or its live feed. */
export const MAIL_CATCHER_SOCKET = `${MAIL_CATCHER_DIR}/web.sock`;
/** The account maildev runs as when Forja runs as root: it parses what any sender wrote. */
export const MAIL_CATCHER_OS_USER = 'forja-mail';

export const mailCatcherSocketPath = (dataDir: string): string => join(dataDir, MAIL_CATCHER_SOCKET);
