// A steady load of event reads and member adds (each add with an Idempotency-Key, retried with the
// same key after a 503 or 409, as a client should), every answer recorded with its time.
import { randomUUID } from 'node:crypto';

export interface Answer {
  /** HTTP status, or 'no answer' (connection refused, reset, or 15 s without an answer). */
  status: number | 'no answer';
  code: string | null;
  retryAfter: string | null;
  ms: number;
  at: number;
  kind: 'read' | 'add';
}

/** Runs `workers` clients until stop(); `acknowledged` holds the emails whose add answered 2xx. */
export class FaultLoad {
  readonly answers: Answer[] = [];
  readonly acknowledged: string[] = [];
  private stopped = false;
  private running: Promise<unknown> | null = null;
  private counter = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly authorization: string,
    private readonly workers = 10,
  ) {}

  start(): this {
    this.running = Promise.all(Array.from({ length: this.workers }, (_, index) => this.worker(index)));
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** The answers that arrived after `since` (Date.now()). */
  since(since: number): Answer[] {
    return this.answers.filter((answer) => answer.at >= since);
  }

  /** Resolves with the time of the first 2xx answered at or after `since` (polling), or null after `withinMs`. */
  async firstSuccessAfter(since: number, withinMs: number): Promise<number | null> {
    const until = since + withinMs;
    for (;;) {
      const success = this.answers.find((answer) => answer.at >= since && typeof answer.status === 'number' && answer.status < 300);
      if (success) return success.at;
      if (Date.now() > until) return null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async worker(index: number): Promise<void> {
    let pending: { email: string; key: string } | null = null;
    while (!this.stopped) {
      const add = index % 2 === 1;
      if (add) pending ??= { email: `fault-${this.counter++}-${randomUUID().slice(0, 8)}@faults.example.org`, key: randomUUID() };
      const started = Date.now();
      let answer: Answer;
      try {
        const res = add
          ? await fetch(`${this.baseUrl}/admin/v0/members`, {
              method: 'POST',
              headers: { authorization: this.authorization, 'content-type': 'application/json', 'idempotency-key': pending?.key ?? '' },
              body: JSON.stringify({ email: pending?.email, full_name: 'Fault tolerant' }),
              signal: AbortSignal.timeout(15_000),
            })
          : await fetch(`${this.baseUrl}/admin/v0/calendar_events?per_page=5`, {
              headers: { authorization: this.authorization },
              signal: AbortSignal.timeout(15_000),
            });
        const text = await res.text();
        let code: string | null = null;
        if (res.status >= 300) code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
        answer = {
          status: res.status,
          code,
          retryAfter: res.headers.get('retry-after'),
          ms: Date.now() - started,
          at: Date.now(),
          kind: add ? 'add' : 'read',
        };
      } catch {
        answer = {
          status: 'no answer',
          code: null,
          retryAfter: null,
          ms: Date.now() - started,
          at: Date.now(),
          kind: add ? 'add' : 'read',
        };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      this.answers.push(answer);
      if (add && pending && typeof answer.status === 'number' && answer.status < 300) {
        this.acknowledged.push(pending.email);
        pending = null;
      } else if (add && pending && answer.status !== 503 && answer.status !== 409 && answer.status !== 'no answer') {
        // Any other answer settles the add (and is reported by the test as wrong).
        pending = null;
      }
      // A client honours Retry-After loosely: a short pause, so the outage is not a busy loop.
      if (answer.status === 503 || answer.status === 409) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Answers that are neither 2xx nor a 503 in the envelope with Retry-After (an outage, a deadline, a stopping server), nor a 409 idempotency_key_in_use (a retry meeting its own earlier claim). */
export function wrongAnswers(answers: readonly Answer[]): Answer[] {
  return answers.filter((answer) => {
    if (typeof answer.status !== 'number') return true;
    if (answer.status < 300) return false;
    if (answer.status === 503)
      return !['database_unavailable', 'request_timeout', 'service_unavailable'].includes(answer.code ?? '') || answer.retryAfter === null;
    return !(answer.status === 409 && answer.code === 'idempotency_key_in_use');
  });
}

/** A compact summary of answers for assertion messages: count per status and code, and the slowest. */
export function summary(answers: readonly Answer[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const label = `${answer.status}${answer.code ? ` ${answer.code}` : ''}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const slowest = answers.reduce((max, answer) => Math.max(max, answer.ms), 0);
  return `${[...counts].map(([label, count]) => `${label}: ${count}`).join(', ')}; slowest ${slowest} ms`;
}
