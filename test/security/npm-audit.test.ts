// The CI audit step's decision (test/security/support/npm-audit.ts, run by .ci/run after npm ci).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { auditVerdict } from './support/npm-audit.js';

const report = (counts: Record<string, number>) =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities: {}, metadata: { vulnerabilities: counts } });

it('fails on high or critical advisories in production dependencies, passes on fewer', () => {
  assert.equal(auditVerdict(report({ info: 0, low: 2, moderate: 1, high: 1, critical: 0, total: 4 })).outcome, 'fail');
  assert.equal(auditVerdict(report({ info: 0, low: 0, moderate: 0, high: 0, critical: 1, total: 1 })).outcome, 'fail');
  assert.equal(auditVerdict(report({ info: 0, low: 3, moderate: 2, high: 0, critical: 0, total: 5 })).outcome, 'pass');
});

it('tolerates an unreachable audit endpoint, saying so', () => {
  const http405 = JSON.stringify({
    message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
    statusCode: 405,
  });
  const offline = JSON.stringify({ error: { code: 'ENOTFOUND', summary: 'request to https://registry.npmjs.org failed' } });
  for (const output of [http405, offline]) {
    const verdict = auditVerdict(output);
    assert.equal(verdict.outcome, 'unavailable');
    assert.match(verdict.message, /SKIPPED/);
  }
});

it('fails when npm itself cannot audit (no lockfile, no JSON)', () => {
  assert.equal(
    auditVerdict(JSON.stringify({ error: { code: 'ENOLOCK', summary: 'This command requires an existing lockfile.' } })).outcome,
    'fail',
  );
  assert.equal(auditVerdict('npm ERR! something').outcome, 'fail');
});
