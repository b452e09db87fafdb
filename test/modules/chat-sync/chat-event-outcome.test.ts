import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type ChatEventOutcome, describeChatEventOutcome } from '../../../src/modules/chat-sync/rules/event-outcome.js';

// The worker's log line shows these sentences; they are what applyEvent returned before its outcome became data.
it('renders every chat event outcome as the sentence the worker has always logged', () => {
  const cases: [ChatEventOutcome, string][] = [
    [{ kind: 'profile_written' }, 'profile written'],
    [{ kind: 'profile_unchanged' }, 'profile unchanged'],
    [{ kind: 'ignored', reason: 'unbound_channel' }, 'no feed bound to the channel'],
    [{ kind: 'feeds_changed', feeds: 2 }, '2 feed(s) changed'],
    [{ kind: 'ignored', reason: 'not_a_message_reaction' }, 'not a message reaction'],
    [{ kind: 'reactions_counted', posts: 1 }, '1 post(s) counted'],
    [{ kind: 'ignored', reason: 'event_type', type: 'pin_added' }, 'ignored pin_added'],
    [{ kind: 'posts_deleted', posts: 0 }, '0 post(s) deleted'],
    [{ kind: 'ignored', reason: 'message_subtype', subtype: 'channel_join' }, 'ignored message channel_join'],
    [{ kind: 'reply_edited' }, 'reply edited'],
    [{ kind: 'replies_counted', threads: 3 }, '3 thread(s) counted'],
    [{ kind: 'ignored', reason: 'no_author' }, 'message without an author'],
    [{ kind: 'posts_written', created: 1, updated: 2, skipped: 0 }, '1 post(s) created, 2 updated'],
    [{ kind: 'already_applied' }, 'already applied'],
  ];
  for (const [outcome, sentence] of cases) assert.equal(describeChatEventOutcome(outcome), sentence);
});
