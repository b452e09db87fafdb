import { type ChildProcess, spawn } from 'node:child_process';
import { binPath, projectRoot } from './cli.js';

/** The real `community-admin serve` (the built dist) in its own process. */
export interface RunningServer {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

let nextPort = 39000 + Math.floor(Math.random() * 2000);

/** Starts the server on a free-ish port with the given environment; resolves once /healthz answers. */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = nextPort++;
  const child = spawn(process.execPath, [binPath, 'serve'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    // A stop that hangs must fail the test, not the whole run: the graceful stop promises 10 s.
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }, 60_000).unref();
  });
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return { child, port, output: () => output, exited };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${output}`);
}
