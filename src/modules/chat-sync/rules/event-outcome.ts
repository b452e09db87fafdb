/**
 * What applying one Events API delivery did, as data: the worker logs it (rendered by
 * `describeChatEventOutcome`), tests compare it. A closed list: a new outcome is a new member here.
 */
export type ChatEventOutcome =
  | { kind: 'profile_written' }
  | { kind: 'profile_unchanged' }
  | { kind: 'feeds_changed'; feeds: number }
  | { kind: 'reactions_counted'; posts: number }
  | { kind: 'posts_deleted'; posts: number }
  | { kind: 'replies_counted'; threads: number }
  | { kind: 'reply_edited' }
  /** skipped: records of messages that the post rules refused (not written). */
  | { kind: 'posts_written'; created: number; updated: number; skipped: number }
  | { kind: 'already_applied' }
  | { kind: 'ignored'; reason: 'unbound_channel' | 'not_a_message_reaction' | 'no_author' }
  | { kind: 'ignored'; reason: 'event_type'; type: string }
  | { kind: 'ignored'; reason: 'message_subtype'; subtype: string };

/** The sentence of an outcome, as the worker's log line has always shown it. */
export function describeChatEventOutcome(outcome: ChatEventOutcome): string {
  switch (outcome.kind) {
    case 'profile_written':
      return 'profile written';
    case 'profile_unchanged':
      return 'profile unchanged';
    case 'feeds_changed':
      return `${outcome.feeds} feed(s) changed`;
    case 'reactions_counted':
      return `${outcome.posts} post(s) counted`;
    case 'posts_deleted':
      return `${outcome.posts} post(s) deleted`;
    case 'replies_counted':
      return `${outcome.threads} thread(s) counted`;
    case 'reply_edited':
      return 'reply edited';
    case 'posts_written':
      return `${outcome.created} post(s) created, ${outcome.updated} updated`;
    case 'already_applied':
      return 'already applied';
    case 'ignored':
      switch (outcome.reason) {
        case 'unbound_channel':
          return 'no feed bound to the channel';
        case 'not_a_message_reaction':
          return 'not a message reaction';
        case 'no_author':
          return 'message without an author';
        case 'event_type':
          return `ignored ${outcome.type}`;
        case 'message_subtype':
          return `ignored message ${outcome.subtype}`;
      }
  }
}
