import type { Db } from '../../../db/database.js';
import { activityRowsInChainOrder, selectChainHead } from '../activities.queries.js';
import { type ActivityRow, activityRecord, canonicalText, chainHash } from '../activities.records.js';

/** The first record that does not match, and why. */
export interface ChainProblem {
  id: string | null;
  seq: number;
  action: string | null;
  occurred_at: string | null;
  reason: string;
}

export interface ChainVerdict {
  ok: boolean;
  community_id: string;
  records: number;
  /** Chains that start inside the log (an imported log before the community's own): 1 normally. */
  segments: number;
  first_seq: number | null;
  last_seq: number | null;
  head_hash: string | null;
  problem: ChainProblem | null;
}

const problemAt = (row: ActivityRow, reason: string): ChainProblem => {
  const record = activityRecord(row);
  return { id: row.id, seq: Number(row.seq), action: record.action, occurred_at: record.occurred_at, reason };
};

/**
 * Recomputes a community's chain in seq order, a batch at a time (memory stays flat): each record's
 * hash from its stored predecessor hash and its canonical bytes (an edited record fails here), each
 * record's predecessor hash against the record before it, and the seqs without a gap (a deleted
 * record fails there), and the last record against the community's head (a deleted last record).
 * The first record is the anchor: its predecessor may be gone (retention prunes the oldest). A
 * record whose predecessor hash is empty starts a chain (a log imported before the community's own).
 */
export async function verifyChain(db: Db, communityId: string): Promise<ChainVerdict> {
  const verdict: ChainVerdict = {
    ok: true,
    community_id: communityId,
    records: 0,
    segments: 0,
    first_seq: null,
    last_seq: null,
    head_hash: null,
    problem: null,
  };
  let previous: ActivityRow | null = null;
  const fail = (problem: ChainProblem): ChainVerdict => ({ ...verdict, ok: false, problem });
  for await (const rows of activityRowsInChainOrder(db, communityId)) {
    for (const row of rows) {
      const seq = Number(row.seq);
      if (chainHash(row.prev_hash, canonicalText(activityRecord(row))) !== row.hash)
        return fail(problemAt(row, 'its content does not match its hash: the record was changed after it was written'));
      if (previous === null) verdict.segments = 1;
      else if (seq !== Number(previous.seq) + 1)
        return fail(problemAt(row, `the record(s) before it are missing (seq ${Number(previous.seq) + 1} to ${seq - 1})`));
      else if (row.prev_hash === '') verdict.segments++;
      else if (row.prev_hash !== previous.hash)
        return fail(problemAt(row, 'it does not follow the record before it: a record was deleted or replaced'));
      verdict.records++;
      verdict.first_seq ??= seq;
      verdict.last_seq = seq;
      verdict.head_hash = row.hash;
      previous = row;
    }
  }
  const head = await selectChainHead(db, communityId);
  // No records and a head: retention removed them all (nothing is left to contradict the head).
  if (head && previous === null) verdict.head_hash = head.hash;
  if (head && previous !== null && (Number(head.seq) !== Number(previous.seq) || head.hash !== previous.hash))
    return fail({
      id: null,
      seq: Number(head.seq),
      action: null,
      occurred_at: null,
      reason: `the last record(s) are missing: the chain's head is at seq ${Number(head.seq)}, the log ends at seq ${Number(previous.seq)}`,
    });
  return verdict;
}
