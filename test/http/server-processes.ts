import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { binPath, projectRoot } from '../support/cli.js';

/** A real `community-admin serve` process. */
export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(relative(dir, path));
    }
  };
  walk(dir);
  return files;
}

/**
 * Builds dist when a source file is newer than its compiled file (`npm test` builds first; running
 * this file alone may not). Type errors elsewhere do not stop tsc from emitting, so only a missing
 * entry point fails.
 */
export function ensureBuilt(): void {
  const src = join(projectRoot, 'src');
  const dist = join(projectRoot, 'dist');
  const stale = sourceFiles(src).some((file) => {
    const built = join(dist, file.replace(/\.ts$/, '.js'));
    return !existsSync(built) || statSync(built).mtimeMs < statSync(join(src, file)).mtimeMs;
  });
  if (!stale) return;
  spawnSync(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: projectRoot,
    stdio: 'ignore',
  });
  if (!existsSync(join(dist, 'cli/index.js'))) throw new Error('the build produced no dist/cli/index.js');
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts `node bin/community-admin.js serve` with the environment and waits until /healthz answers. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [binPath, 'serve'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return { child, baseUrl, output: () => output, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`server did not start: ${output}`);
}
