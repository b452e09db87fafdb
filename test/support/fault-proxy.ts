// A TCP proxy on 127.0.0.1 between a server process and PostgreSQL (or Redis) that can fail the way
// networks and databases fail: cut every connection, refuse new ones, go silent (a black hole) and
// heal, or stay silent for good on the connections it had while new ones work.
import { connect, createServer, type Server, type Socket } from 'node:net';

type Mode = 'open' | 'refusing' | 'silent';

interface Link {
  client: Socket;
  upstream: Socket | null;
  /** Silent for good: never forwarded again, even after a heal. */
  abandoned: boolean;
}

/** A proxy to `target`; start() listens on a free loopback port. */
export class FaultProxy {
  private server: Server | null = null;
  private mode: Mode = 'open';
  private readonly links = new Set<Link>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens; `down` starts it refusing connections (a database that is not up yet). */
  async start(down = false): Promise<this> {
    if (down) this.mode = 'refusing';
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Connections currently open through the proxy. */
  get openLinks(): number {
    return this.links.size;
  }

  /** Resets every open connection (a failover, a restart); new ones still pass. */
  cut(): void {
    for (const link of [...this.links]) this.drop(link);
  }

  /** Resets every open connection and refuses new ones until heal() (the database is down). */
  down(): void {
    this.mode = 'refusing';
    this.cut();
  }

  /**
   * Silence (a network partition): nothing passes either way, nothing is closed; new connections
   * are accepted and hear nothing. Data already sent waits in the sockets' buffers, as TCP would
   * retransmit it, and arrives after heal().
   */
  blackHole(): void {
    this.mode = 'silent';
    for (const link of this.links) this.pause(link);
  }

  /** The connections open now stay silent for good; new ones pass (what a failover to a new address looks like). */
  abandonOpenLinks(): void {
    for (const link of this.links) {
      link.abandoned = true;
      this.pause(link);
    }
    this.mode = 'open';
  }

  /** Back to normal: new connections pass, and silent ones (not abandoned) resume. */
  heal(): void {
    this.mode = 'open';
    for (const link of this.links) if (!link.abandoned) this.forward(link);
  }

  async close(): Promise<void> {
    for (const link of [...this.links]) this.drop(link);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => {});
    if (this.mode === 'refusing') {
      client.resetAndDestroy();
      return;
    }
    const link: Link = { client, upstream: null, abandoned: false };
    this.links.add(link);
    client.on('close', () => this.drop(link));
    if (this.mode === 'silent') client.pause();
    else this.forward(link);
  }

  private forward(link: Link): void {
    if (!link.upstream) {
      const upstream = connect(this.target.port, this.target.host);
      upstream.on('error', () => {});
      upstream.on('close', () => this.drop(link));
      link.upstream = upstream;
    }
    link.client.pipe(link.upstream);
    link.upstream.pipe(link.client);
  }

  private pause(link: Link): void {
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.pause();
    link.upstream?.pause();
  }

  private drop(link: Link): void {
    if (!this.links.delete(link)) return;
    link.client.resetAndDestroy();
    link.upstream?.resetAndDestroy();
  }
}
