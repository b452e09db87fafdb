import type { AddressInfo } from 'node:net';

/**
 * The base of public URLs (uploaded files): PUBLIC_BASE_URL when set, else the address the server
 * listens on (its real port once listening, so PORT=0 works), else HOST and PORT as configured.
 */
export function publicBaseUrl(
  configured: string | null,
  listening: { host: string; port: number },
  address?: AddressInfo | string | null,
): string {
  if (configured) return configured;
  const port = address && typeof address === 'object' ? address.port : listening.port;
  const host = listening.host.includes(':') ? `[${listening.host}]` : listening.host;
  return `http://${host}:${port}`;
}

/** The base of public URLs under the default HOST and PORT, for writers that run without a server (the CLI import). */
export const defaultPublicBaseUrl = 'http://127.0.0.1:3000';
