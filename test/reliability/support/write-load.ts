// A write load against a real server: member adds (some refused by the service), event deletions
// and attendee updates, each with an Idempotency-Key, every request and its answer recorded.
import { randomUUID } from 'node:crypto';

export type WriteKind = 'add' | 'add_refused' | 'delete' | 'attendee' | 'attendee_unknown_user';

export interface WriteRecord {
  kind: WriteKind;
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body: string | null;
  idempotencyKey: string;
  /** HTTP status, or null when no answer arrived (in flight when the server died). */
  status: number | null;
  responseBody: string | null;
  /** The member email, event id or (event id, profile chat id) the write is about. */
  subject: { email?: string; eventId?: string; chatUserId?: string };
}

export interface WriteLoadPlan {
  baseUrl: string;
  authorization: string;
  /** Events attendees are added to (never deleted, so that their counts can be checked). */
  attendeeEventIds: string[];
  /** Events that are deleted (each several times: the repeats answer 404). */
  deletableEventIds: string[];
  chatUserIds: string[];
  workers: number;
}

/** Runs the load until `stop()` is called or the server stops answering; resolves with every record. */
export class WriteLoad {
  readonly records: WriteRecord[] = [];
  private stopped = false;
  private memberCounter = 0;
  private readonly pairs: [string, string][];
  private readonly answeredListeners: { threshold: number; resolve: () => void }[] = [];
  private answered = 0;

  constructor(private readonly plan: WriteLoadPlan) {
    // Every attendee update names a pair (event, user) used once, so each 200 adds exactly one attendee.
    this.pairs = plan.attendeeEventIds.flatMap((eventId) => plan.chatUserIds.map((user): [string, string] => [eventId, user]));
    this.pairs.sort(() => Math.random() - 0.5);
  }

  /** Resolves once `threshold` requests have been answered. */
  answeredAtLeast(threshold: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.answered >= threshold) resolve();
      else this.answeredListeners.push({ threshold, resolve });
    });
  }

  stop(): void {
    this.stopped = true;
  }

  /** Runs the workers; resolves when all have stopped (asked to, or the server went away). */
  async run(): Promise<WriteRecord[]> {
    await Promise.all(Array.from({ length: this.plan.workers }, () => this.worker()));
    return this.records;
  }

  private next(): Omit<WriteRecord, 'status' | 'responseBody'> | null {
    const roll = Math.random();
    const idempotencyKey = randomUUID();
    if (roll < 0.4) {
      const n = this.memberCounter++;
      const email = `m${n}-${idempotencyKey.slice(0, 8)}@crash.example.org`;
      // One in five is refused by the service after the key is claimed (no chat connection): nothing may be created.
      const refused = n % 5 === 4;
      const body = refused ? { email, full_name: `Refused ${n}`, invite_to_chat: true } : { email, full_name: `Member ${n}` };
      return {
        kind: refused ? 'add_refused' : 'add',
        method: 'POST',
        path: '/admin/v0/members',
        body: JSON.stringify(body),
        idempotencyKey,
        subject: { email },
      };
    }
    if (roll < 0.55) {
      const eventId = this.plan.deletableEventIds[Math.floor(Math.random() * this.plan.deletableEventIds.length)] as string;
      return {
        kind: 'delete',
        method: 'DELETE',
        path: `/admin/v0/calendar_events/${eventId}`,
        body: null,
        idempotencyKey,
        subject: { eventId },
      };
    }
    if (roll < 0.62) {
      const eventId = this.plan.attendeeEventIds[0] as string;
      const chatUserId = `UNKNOWN${idempotencyKey.slice(0, 6)}`;
      const body = JSON.stringify({ user: { chat_user_id: chatUserId } });
      return {
        kind: 'attendee_unknown_user',
        method: 'PATCH',
        path: `/admin/v0/calendar_events/${eventId}/attendees`,
        body,
        idempotencyKey,
        subject: { eventId, chatUserId },
      };
    }
    const pair = this.pairs.pop();
    if (!pair) return null;
    const [eventId, chatUserId] = pair;
    const body = JSON.stringify({ user: { chat_user_id: chatUserId }, personal_join_link: `https://meet.example/${idempotencyKey}` });
    return {
      kind: 'attendee',
      method: 'PATCH',
      path: `/admin/v0/calendar_events/${eventId}/attendees`,
      body,
      idempotencyKey,
      subject: { eventId, chatUserId },
    };
  }

  private async worker(): Promise<void> {
    while (!this.stopped) {
      const request = this.next();
      if (!request) return;
      const record: WriteRecord = { ...request, status: null, responseBody: null };
      this.records.push(record);
      try {
        const res = await send(this.plan.baseUrl, this.plan.authorization, request);
        record.status = res.status;
        record.responseBody = res.body;
        this.answered++;
        for (const listener of this.answeredListeners.filter((l) => this.answered >= l.threshold)) listener.resolve();
      } catch {
        // No answer: the server is gone. The record stays "unknown".
        return;
      }
    }
  }
}

/** Sends one recorded request (also used to replay it after the restart). */
export async function send(
  baseUrl: string,
  authorization: string,
  request: Pick<WriteRecord, 'method' | 'path' | 'body' | 'idempotencyKey'>,
): Promise<{ status: number; body: string; replayed: boolean }> {
  const headers: Record<string, string> = { authorization, 'idempotency-key': request.idempotencyKey };
  if (request.body !== null) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers, body: request.body ?? undefined });
  return { status: res.status, body: await res.text(), replayed: res.headers.get('x-idempotent-replayed') === 'true' };
}
