import Docker from 'dockerode';

/** A client of the Docker Engine API on a unix socket (dockerd, or `podman system service`). */
export function openEngine(socketPath: string): Docker {
  return new Docker({ socketPath });
}

/** The HTTP status the engine answered with, when `error` is an engine error. */
export function engineStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Runs `call`, treating the listed engine answers as success: 404 (already gone) and 304 (already
 * stopped) are what a repeated, idempotent step meets.
 */
export async function tolerating(statuses: number[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!statuses.includes(engineStatus(error) ?? -1)) throw error;
  }
}

/**
 * The lines of a container's log as `GET /containers/{id}/logs` returns it without a TTY: frames
 * of an 8-byte header (stream, 3 zero bytes, big-endian length) and the payload. A buffer that does
 * not look framed is taken as plain text.
 */
export function containerLogLines(raw: Buffer | string): string[] {
  const buffer = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length && buffer[offset]! <= 2 && buffer.readUIntBE(offset + 1, 3) === 0) {
    const length = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  const text = offset === buffer.length ? Buffer.concat(parts).toString('utf8') : buffer.toString('utf8');
  return text.split('\n').filter((line) => line.trim() !== '');
}
