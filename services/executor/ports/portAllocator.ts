import { isPortFree } from '#shared/local/freePort.ts';

/**
 * Chooses an instance's ERP port once, at its first start; every later start reuses it, so the
 * URL people bookmark stays valid. Ports come from a range outside the kernel's ephemeral range
 * (32768–60999 on Linux), where a stopped instance's port could be taken by any outgoing
 * connection meanwhile. A port is skipped when another instance keeps it (read model), when this
 * executor handed it out already (the read model may not show it yet), or when something listens.
 */
export interface PortAllocator {
  allocate(): Promise<number>;
}

export interface PortAllocatorOptions {
  range: { from: number; to: number };
  /** Ports kept by instances that are not destroyed. */
  reserved: () => Promise<Set<number>>;
  isFree?: (port: number) => Promise<boolean>;
  /** [0, 1), for tests. */
  random?: () => number;
}

/** `20000-29999` → { from: 20000, to: 29999 }; the settings schema checked the shape. */
export function parsePortRange(text: string): { from: number; to: number } {
  const [from, to] = text.split('-').map(Number) as [number, number];
  if (!(from >= 1024 && to <= 65535 && from <= to)) throw new Error(`not a port range between 1024 and 65535: ${text}`);
  return { from, to };
}

export function portAllocator(options: PortAllocatorOptions): PortAllocator {
  const handedOut = new Set<number>();
  const isFree = options.isFree ?? isPortFree;
  const random = options.random ?? Math.random;
  const { from, to } = options.range;
  const size = to - from + 1;
  return {
    async allocate() {
      const reserved = await options.reserved();
      // Random start, then every port once: two executors on one machine rarely pick the same one.
      const offset = Math.floor(random() * size);
      for (let i = 0; i < size; i += 1) {
        const port = from + ((offset + i) % size);
        if (reserved.has(port) || handedOut.has(port)) continue;
        handedOut.add(port);
        if (await isFree(port)) return port;
      }
      throw new Error(`no free port left for an ERP in ${from}-${to} (FORJA_ERP_PORTS)`);
    },
  };
}
