import type { EpochMillis } from './time.js';

/**
 * End of life of the Node.js release lines this service runs on (nodejs.org/about/previous-releases):
 * past it a line gets no security fixes. Lines older than 20 are refused by `engines`.
 */
const endOfLife: Record<number, string> = { 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };

/** The recommended line (README, "Requirements"). */
const recommendedNodeLine = 24;

/** The warning to log at start when this Node.js line is past its end of life, else null. */
export function nodeEndOfLifeWarning(version: string, nowMs: EpochMillis): string | null {
  const line = Number(/^v?(\d+)\./.exec(version)?.[1]);
  const date = endOfLife[line];
  if (date === undefined || nowMs < Date.parse(`${date}T00:00:00Z`)) return null;
  return `Node.js ${version} is past its end of life (the ${line}.x line stopped receiving security fixes on ${date}); run Node.js ${recommendedNodeLine} LTS`;
}
