import { hash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { ActivitiesTable } from '../../db/schema.js';
import type { ActivityAction, ActorType } from '../../shared/activity.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';

/*
 * A stored activity row as the API, the CLI and the export show it, and the chain's arithmetic:
 * `hash` = SHA-256 over the previous record's hash (its 32 bytes; none for the first record of a
 * chain) followed by the record's canonical bytes (docs/activity.md, "Verification").
 */

/** An activity record as answered (GET /activities, `activity list --json`, the export's lines). */
export interface ActivityRecord {
  id: string;
  occurred_at: string;
  action: ActivityAction;
  actor: { type: ActorType; id: string | null; label: string | null };
  target: { type: string; id: string | null; name: string | null };
  context: { request_id: string; ip: string | null; user_agent: string | null } | null;
  changes: Record<string, [unknown, unknown]> | null;
  metadata: Record<string, unknown> | null;
  hash: string;
}

export type ActivityRow = Selectable<ActivitiesTable>;

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A stored row as the record it is. */
export function activityRecord(row: Omit<ActivityRow, 'community_id' | 'seq' | 'prev_hash'>): ActivityRecord {
  return {
    id: row.id,
    occurred_at: formatJsonTimestamp(row.occurred_at),
    action: row.action as ActivityAction,
    actor: { type: row.actor_type as ActorType, id: row.actor_id, label: row.actor_label },
    target: { type: row.target_type, id: row.target_id, name: row.target_name },
    context: parsed(row.context),
    changes: parsed(row.changes),
    metadata: parsed(row.metadata),
    hash: row.hash,
  };
}

/**
 * JSON with every object's keys in code-point order and no spaces (RFC 8785 for the values a
 * record holds: strings, integers, booleans, null, arrays, objects).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
}

/** A string or null as JSON. */
const text = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));

/**
 * The bytes a record's hash covers (with its predecessor's): the record without its hash, canonical.
 * Spelled out field by field, keys in their sorted order, as canonicalJson would write them (a test
 * holds the two equal): it runs on every write, where the generic walk cost several microseconds.
 */
export function canonicalText(record: Omit<ActivityRecord, 'hash'> & { hash?: string }): string {
  const { actor, target, context } = record;
  const contextText =
    context === null
      ? 'null'
      : `{"ip":${text(context.ip)},"request_id":${JSON.stringify(context.request_id)},"user_agent":${text(context.user_agent)}}`;
  return (
    `{"action":${JSON.stringify(record.action)},"actor":{"id":${text(actor.id)},"label":${text(actor.label)},"type":${JSON.stringify(actor.type)}},` +
    `"changes":${canonicalJson(record.changes)},"context":${contextText},"id":${JSON.stringify(record.id)},` +
    `"metadata":${canonicalJson(record.metadata)},"occurred_at":${JSON.stringify(record.occurred_at)},` +
    `"target":{"id":${text(target.id)},"name":${text(target.name)},"type":${JSON.stringify(target.type)}}}`
  );
}

/** The record's hash, hex: SHA-256 over the previous hash's bytes ('' for none) and its canonical text. */
export function chainHash(prevHash: string, canonical: string): string {
  // One-shot hash (Node >= 20.12): a createHash object costs more than hashing a record.
  const text = Buffer.from(canonical, 'utf8');
  return hash('sha256', prevHash === '' ? text : Buffer.concat([Buffer.from(prevHash, 'hex'), text]), 'hex');
}
