import { createServer } from 'node:net';

/** A loopback TCP port that was free a moment ago, for a server a test or benchmark starts next. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** An address from /proc/net/tcp{,6}: 32-bit words in host (little-endian) byte order. */
function procAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/**
 * The local addresses on which something listens on this TCP port, as the kernel reports them
 * (/proc/net/tcp and tcp6, Linux): `127.0.0.1` for loopback only, `0.0.0.0` or `::` for every
 * interface. Tests of a server's listen address read this instead of guessing the machine's networks.
 */
export async function listeningAddresses(port: number): Promise<string[]> {
  const { readFile } = await import('node:fs/promises');
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue;
      const [address, portHex] = local.split(':') as [string, string];
      if (Number.parseInt(portHex, 16) === port) found.push(procAddress(address));
    }
  }
  return found.sort();
}

/** Waits until something listens on this port (a process a test just started), then its addresses. */
export async function waitForListener(port: number, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const addresses = await listeningAddresses(port);
    if (addresses.length > 0) return addresses;
    if (Date.now() > deadline) throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
