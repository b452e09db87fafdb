import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './cli.js';

export const consoleDist = join(projectRoot, 'console', 'dist');

/** Builds the client and the console when console/dist is missing (npm install builds both; a fresh worktree may not have). */
export function ensureConsoleBuilt(): void {
  if (existsSync(join(consoleDist, 'index.html'))) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'console:build'], { cwd: projectRoot, encoding: 'utf8' });
  if (result.status !== 0 || !existsSync(join(consoleDist, 'index.html'))) {
    throw new Error(`npm run console:build failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/** The hashed JavaScript and CSS files the built page loads, as paths under /console/. */
export function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
}
