// A small but complete community (every resource of the API) loaded through the real import, with
// ids derived from a one-letter tag, so that two communities can be told apart in isolation tests.
import { runImport } from '../../../src/import/run-import.js';
import type { TestApp } from '../../support/harness.js';

export interface World {
  communityId: string;
  key: string;
  auth: { authorization: string };
  eventIds: string[];
  profileIds: string[];
  chatUserIds: string[];
  emails: string[];
  /** Active members without a chat profile (deactivation succeeds). */
  plainMemberIds: string[];
  /** Members linked to a chat profile (deactivation answers 409). */
  linkedMemberIds: string[];
  memberEmails: string[];
  groupIds: string[];
  feedIds: string[];
  postIds: string[];
  tagIds: string[];
}

/** A UUID v4 whose first character is the tag (a hex digit), so ids of two worlds never meet. */
export const worldUuid = (tag: string, kind: number, n: number): string =>
  `${tag}${kind}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A 12-character event id of the tag's world. */
export const worldEventId = (tag: string, n: number): string => `${tag}ev${String(n).padStart(9, '0')}`;

const range = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

/** The import document of the tag's world; `now` places events around the test clock. */
export function worldDocument(tag: string, now: number, size = 6): Record<string, unknown> {
  const profileIds = range(size).map((n) => worldUuid(tag, 1, n));
  const feedIds = range(3).map((n) => worldUuid(tag, 2, n));
  const day = 24 * 60 * 60 * 1000;
  return {
    profiles: range(size).map((n) => ({
      profile_id: profileIds[n - 1],
      created_at: '2026-01-01T00:00:00Z',
      email: `person${n}@${tag}.example.org`,
      first_name: `First${n}`,
      last_name: `Last${n}`,
      chat_user_id: `U${tag.toUpperCase()}${String(n).padStart(7, '0')}`,
    })),
    members: range(size).map((n) => ({
      id: worldUuid(tag, 3, n),
      email: n <= size / 2 ? `person${n}@${tag}.example.org` : `member${n}@${tag}.example.org`,
      full_name: `Member ${n}`,
      chat_profile_id: n <= size / 2 ? profileIds[n - 1] : null,
      state: n === size ? 'deactivated' : 'active',
    })),
    groups: range(2).map((n) => ({ id: `${tag}-group-${n}`, name: `Group ${n}`, member_profile_ids: [profileIds[0]] })),
    feeds: feedIds.map((id, i) => ({
      id,
      label: `Feed ${i + 1}`,
      slug: `feed-${i + 1}`,
      chat_channel_id: `C${tag.toUpperCase()}${i + 1}`,
      chat_channel_name: `feed-${i + 1}`,
    })),
    posts: range(size).map((n) => ({
      id: `${tag}-post-${n}`,
      feed_id: feedIds[n % feedIds.length],
      author_profile_id: profileIds[n % profileIds.length],
      title: `Post ${n}`,
      chat_message: {
        id: worldUuid(tag, 4, n),
        message_ts: 1795165200 + n,
        blocks: [
          {
            type: 'rich_text',
            block_id: 'b1',
            elements: [
              {
                type: 'rich_text_section',
                elements: [
                  { type: 'text', text: `Hello ${n} ` },
                  { type: 'user', user_id: `U${tag.toUpperCase()}${String(1).padStart(7, '0')}` },
                  { type: 'link', url: 'https://example.org/x' },
                ],
              },
            ],
          },
        ],
      },
    })),
    calendar_events: range(size).map((n) => ({
      id: worldEventId(tag, n),
      title: `Event ${n}`,
      status: n === size ? 'draft' : 'published',
      start_date: new Date(now + (n - size / 2) * day).toISOString(),
      end_date: new Date(now + (n - size / 2) * day + 3600_000).toISOString(),
      host_profile_ids: [profileIds[0]],
      speaker_profile_ids: [profileIds[1]],
      tags: [{ id: `${tag}-tag-${n % 2}`, label: `Tag ${n % 2}`, tag_group_id: 'g', created_at: '2026-01-01T00:00:00Z' }],
      published_to: [{ feed_id: feedIds[0], chat_channel_id: `C${tag.toUpperCase()}1`, chat_message_permalink: 'https://chat.example/p' }],
      attendees: [{ profile_id: profileIds[2], personal_join_link: 'https://meet.example/x' }],
    })),
  };
}

/** Creates a community (plan given) with a key and loads the tag's world into it. */
export async function seedWorld(t: TestApp, tag: string, plan = 'enterprise', size = 6): Promise<World> {
  const community = await t.community(plan, `World ${tag}`);
  await runImport({ database: t.database, clock: t.clock, communityId: community.id }, worldDocument(tag, t.clock.now(), size));
  return {
    communityId: community.id,
    key: community.key,
    auth: community.auth,
    eventIds: range(size).map((n) => worldEventId(tag, n)),
    profileIds: range(size).map((n) => worldUuid(tag, 1, n)),
    chatUserIds: range(size).map((n) => `U${tag.toUpperCase()}${String(n).padStart(7, '0')}`),
    emails: range(size).map((n) => `person${n}@${tag}.example.org`),
    plainMemberIds: range(size)
      .filter((n) => n > size / 2)
      .map((n) => worldUuid(tag, 3, n)),
    linkedMemberIds: range(size)
      .filter((n) => n <= size / 2)
      .map((n) => worldUuid(tag, 3, n)),
    memberEmails: range(size).map((n) => (n <= size / 2 ? `person${n}@${tag}.example.org` : `member${n}@${tag}.example.org`)),
    groupIds: range(2).map((n) => `${tag}-group-${n}`),
    feedIds: range(3).map((n) => worldUuid(tag, 2, n)),
    postIds: range(size).map((n) => `${tag}-post-${n}`),
    tagIds: [`${tag}-tag-0`, `${tag}-tag-1`],
  };
}
