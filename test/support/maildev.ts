import { chownSync, mkdirSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { dirname } from 'node:path';
import { MAIL_CATCHER_OS_USER, mailCatcherSocketPath } from '#shared/local/mailCatcherSocket.ts';
import { ensureSystemUser } from '#shared/local/systemUser.ts';

/** maildev's API as web reaches it: over its unix socket under the data folder (no port answers). */
export function maildevGet(dataDir: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: mailCatcherSocketPath(dataDir), path: `/mails${path}`, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error('maildev did not answer')));
    req.on('error', reject);
    req.end();
  });
}

/** The subjects of the mail maildev holds. */
export async function maildevSubjects(dataDir: string): Promise<string[]> {
  return (JSON.parse((await maildevGet(dataDir, '/email')).body) as Array<{ subject: string }>).map((mail) => mail.subject);
}

/** The subjects once one is `subject`: maildev files a message the mail catcher relays a moment after taking it. */
export async function maildevSubjectsWith(dataDir: string, subject: string, timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const subjects = await maildevSubjects(dataDir);
    if (subjects.includes(subject) || Date.now() > deadline) return subjects;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Makes `server` (a stand-in maildev) listen where web looks for maildev's UI: its socket under the data folder, owned by maildev's account as root. */
export function listenAsMaildev(server: Server, dataDir: string): Promise<Server> {
  const socketPath = mailCatcherSocketPath(dataDir);
  mkdirSync(dirname(socketPath), { recursive: true });
  return new Promise((resolve) =>
    server.listen(socketPath, () => {
      if (process.getuid?.() === 0) {
        const account = ensureSystemUser(MAIL_CATCHER_OS_USER);
        chownSync(socketPath, account.uid, account.gid);
      }
      resolve(server);
    }),
  );
}
