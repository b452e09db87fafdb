// The CI audit step (.ci/run): runs `npm audit --omit=dev --audit-level=high --json` and decides.
// High or critical advisories in production dependencies fail the build; a registry whose audit
// endpoint cannot be reached (offline CI, a mirror without the endpoint) is reported and tolerated;
// any other failure of npm itself (no lockfile, bad config) fails, so the check cannot rot silently.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type AuditVerdict = { outcome: 'pass' | 'fail' | 'unavailable'; message: string };

/** Network and HTTP failures of the audit endpoint: the audit could not run here. */
const unreachableCodes = /^(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNABORTED|EPROTO|E\d{3})$/;

interface AuditOutput {
  metadata?: { vulnerabilities?: Record<string, number> };
  statusCode?: number;
  message?: string;
  error?: { code?: string; summary?: string };
}

/** The verdict on the JSON that `npm audit --json` printed. */
export function auditVerdict(stdout: string): AuditVerdict {
  let output: AuditOutput;
  try {
    output = JSON.parse(stdout) as AuditOutput;
  } catch {
    return { outcome: 'fail', message: `npm audit printed no JSON: ${stdout.slice(0, 200)}` };
  }
  const counts = output.metadata?.vulnerabilities;
  if (counts) {
    const serious = (counts.high ?? 0) + (counts.critical ?? 0);
    const summary = Object.entries(counts)
      .map(([level, n]) => `${level} ${n}`)
      .join(', ');
    return serious > 0
      ? { outcome: 'fail', message: `npm audit: ${serious} high or critical advisories in production dependencies (${summary})` }
      : { outcome: 'pass', message: `npm audit: no high or critical advisories in production dependencies (${summary})` };
  }
  const code = output.error?.code ?? '';
  if (typeof output.statusCode === 'number' || unreachableCodes.test(code)) {
    const why = output.message ?? output.error?.summary ?? code;
    return { outcome: 'unavailable', message: `npm audit SKIPPED: the registry's audit endpoint is unreachable from here (${why})` };
  }
  return { outcome: 'fail', message: `npm audit could not run: ${code} ${output.error?.summary ?? output.message ?? ''}`.trim() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--audit-level=high', '--json'], { encoding: 'utf8', timeout: 120_000 });
  const verdict = auditVerdict(run.stdout ?? '');
  process.stdout.write(`${verdict.message}\n`);
  process.exitCode = verdict.outcome === 'fail' ? 1 : 0;
}
