import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The project root, bench/.data (git-ignored caches) and bench/results. */
export const projectRoot = fileURLToPath(new URL('../', import.meta.url));
export const dataDir = fileURLToPath(new URL('./.data/', import.meta.url));
export const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
export const binPath = fileURLToPath(new URL('../bin/community-admin.js', import.meta.url));

/** Progress of the bench: stderr, stamped with the time since start. */
export class Log {
  private readonly started = performance.now();

  line(text: string): void {
    const seconds = ((performance.now() - this.started) / 1000).toFixed(0).padStart(5);
    process.stderr.write(`[bench ${seconds}s] ${text}\n`);
  }

  /** A sink that prints at most one line every few seconds (chunks of a big build arrive fast). */
  throttled(prefix: string, everyMs = 5000): (text: string) => void {
    let last = 0;
    return (text) => {
      const now = performance.now();
      if (now - last < everyMs) return;
      last = now;
      this.line(`${prefix}: ${text}`);
    };
  }
}

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The exit code and whole output of a command run from the project root (the load generators). */
export function runCollecting(command: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
