// A community with every kind of value the import keeps: the round trip must carry each one.
type Json = Record<string, unknown>;

const hex = (n: number) => n.toString(16).padStart(12, '0');
export const profileId = (n: number) => `b0000000-0000-4000-8000-${hex(n)}`;
export const memberId = (n: number) => `c0000000-0000-4000-8000-${hex(n)}`;
export const feedId = (n: number) => `d0000000-0000-4000-8000-${hex(n)}`;

const text = (value: string, style?: Json): Json => (style ? { type: 'text', text: value, style } : { type: 'text', text: value });
const section = (...elements: Json[]): Json => ({ type: 'rich_text_section', elements });
const richText = (id: string, ...elements: Json[]): Json => ({ type: 'rich_text', block_id: id, elements });

/** Blocks with mentions, links, emoji, styles, a list and a quote-like preformatted part. */
const messageBlocks = (n: number): Json[] => [
  richText(
    `msg-${n}`,
    section(
      text('Hello '),
      { type: 'user', user_id: 'U1' },
      text(' and '),
      { type: 'channel', channel_id: 'C2' },
      text(', see '),
      { type: 'link', url: 'https://example.com/a?b=1&c=2', text: 'the "notes"' },
      text(' '),
      { type: 'emoji', name: 'tada', unicode: '1f389' },
      text(' bold ünïcödé 🚀', { bold: true }),
    ),
    { type: 'rich_text_list', style: 'ordered', elements: [section(text('one')), section(text('two', { code: true }))] },
    { type: 'rich_text_preformatted', elements: [text('const x = "y";\n')] },
  ),
];

/** The import document of the rich community. */
export function richCommunity(): Json {
  return {
    profiles: [
      {
        profile_id: profileId(1),
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        preferred_name: 'Ada L.',
        chat_user_id: 'U1',
        chat_is_admin: true,
        chat_first_name: 'Ada',
        chat_last_name: 'Lovelace',
        chat_image_72: 'https://img.example.com/u1_72.png',
        preferred_image_original: 'https://img.example.com/u1.png',
        created_at: '2024-01-02T03:04:05.678912Z',
      },
      { profile_id: profileId(2), email: 'bot@example.com', preferred_name: 'Deploy bot', chat_user_id: 'U2', chat_is_bot: true },
      {
        profile_id: profileId(3),
        email: 'Grace.Hopper@Example.com',
        first_name: 'Grace',
        last_name: 'Hopper',
        created_at: '2023-05-06T07:08:09Z',
      },
      { profile_id: profileId(4), email: 'zoe@example.com', first_name: 'Zoë', last_name: "O'Brien", chat_user_id: 'U4' },
    ],
    members: [
      { id: memberId(1), email: 'ada@example.com', full_name: 'Ada Lovelace', chat_profile_id: profileId(1), state: 'active' },
      {
        id: memberId(2),
        email: 'grace.hopper@example.com',
        full_name: 'Grace Brewster Hopper',
        preferred_name: 'Amazing Grace',
        avatar_url_original: 'https://img.example.com/grace.png',
        state: 'deactivated',
      },
      { id: memberId(3), email: 'gone@example.com', full_name: 'Gone Person', state: 'forgotten', avatar_url_original: null },
    ],
    groups: [
      { id: 'speakers', name: 'Speakers', member_profile_ids: [profileId(3), profileId(1)] },
      { id: 'Empty-Group', name: 'Nobody yet' },
    ],
    feeds: [
      {
        id: feedId(1),
        label: 'Announcements',
        emoji_icon: ':mega:',
        chat_channel_id: 'C1',
        chat_channel_name: 'announcements',
        chat_channel_num_members: 42,
        show_in_navigation_menu: true,
        chat_channel_purpose_chat_blocks: [richText('purpose', section(text('News '), { type: 'channel', channel_id: 'C2' }))],
        created_at: '2024-02-01T00:00:00.001Z',
      },
      { id: feedId(2), label: 'Random', slug: 'random-chatter', chat_channel_id: 'C2', chat_channel_name: 'random', is_unlisted: true },
      { id: feedId(3), label: 'Old stuff', is_archived: true, banner_file_url: 'https://img.example.com/banner.png' },
    ],
    posts: [
      {
        id: 'post-1',
        feed_id: feedId(1),
        author_profile_id: profileId(1),
        title: 'Welcome to the "community"',
        source: 'chat',
        reactions_count: 7,
        comments_count: 3,
        file_attachments_count: 1,
        cover_image_url: 'https://img.example.com/cover.png',
        content_created_at: '2025-05-14 19:16:38.630803+00',
        latest_activity_at: '2025-05-15T08:00:00Z',
        chat_message: {
          id: 'e0000000-0000-4000-8000-000000000001',
          message_ts: 1747250195.525399,
          blocks: messageBlocks(1),
          permalink: 'https://example.slack.com/archives/C1/p1747250195525399',
          username: 'ada',
        },
      },
      {
        id: 'post-2-reply',
        feed_id: feedId(1),
        author_profile_id: profileId(2),
        body_plaintext: 'Given plain text wins',
        chat_message: { parent_chat_message_id: 'e0000000-0000-4000-8000-000000000001', icon: ':robot_face:' },
      },
      {
        id: 'Post-3',
        feed_id: feedId(2),
        author_profile_id: profileId(4),
        title: 'Unlisted feed post',
        chat_message: { blocks: messageBlocks(3) },
      },
      { id: 'post-4', feed_id: feedId(3), author_profile_id: profileId(3), title: 'Archived' },
    ],
    calendar_events: [
      {
        id: 'EvtRich00001',
        status: 'published',
        start_date: '2026-12-01T18:00:00Z',
        end_date: '2026-12-01T20:30:00.250Z',
        title: 'Rich “event” ✨',
        description_chat_blocks: messageBlocks(10),
        recap_chat_blocks: [richText('recap', section(text('Thanks '), { type: 'user', user_id: 'U4' }))],
        allow_public_guest_list: true,
        show_end_date: true,
        publish_to_site: true,
        triggers_webhooks: true,
        link: 'https://meet.example.com/rich',
        location: 'Online',
        partner_event_id: 'partner-77',
        webhook_custom_metadata: '{"crm":"x"}',
        slug: 'rich-event',
        cover_image_url: 'https://img.example.com/event.png',
        created_at: '2026-10-01T10:00:00.123456+02:00',
        updated_at: '2026-10-02T10:00:00Z',
        // Order matters and is not the ids' order.
        host_profile_ids: [profileId(4), profileId(1)],
        speaker_profile_ids: [profileId(3), profileId(2), profileId(1)],
        tags: [
          { id: 'topic-ai', label: 'AI', tag_group_id: 'topics', created_at: '2025-01-01T00:00:00Z' },
          { id: 'Format Talk', label: 'Talk', tag_group_id: 'formats' },
        ],
        published_to: [
          { feed_id: feedId(1), chat_channel_id: 'C1', chat_message_permalink: 'https://example.slack.com/archives/C1/p1' },
          { feed_id: feedId(2), chat_channel_id: 'C2' },
        ],
        reminders_config: [{ minutes: 1440 }, { minutes: 15 }],
        attendees: [
          { profile_id: profileId(3), personal_join_link: 'https://meet.example.com/j/3' },
          { profile_id: profileId(1) },
          { profile_id: profileId(2), personal_join_link: null },
        ],
      },
      {
        id: 'evtdraft0002',
        status: 'draft',
        start_date: '2025-03-20T18:00:00Z',
        end_date: null,
        description_chat_blocks: null,
        is_unlisted: true,
        host_profile_ids: [profileId(2)],
      },
      { id: 'EVTNEEDS0003', status: 'needs_approval', start_date: '2026-11-21T12:00:00Z', external_speakers: 'Someone, Else' },
    ],
    awards: [
      {
        id: 'e0000000-0000-4000-8000-000000000002',
        name: 'Helper of the month',
        description: 'Answered the most questions',
        emoji: ':star:',
        created_at: '2025-01-02T03:04:05.123456Z',
        assignments: [
          { profile_id: profileId(3), sender_profile_id: profileId(1), send_anonymously: true, assigned_at: '2025-02-01T00:00:00Z' },
          { profile_id: profileId(1), sender_profile_id: null },
        ],
      },
      { id: 'E0000000-0000-4000-8000-000000000001', name: 'Nobody yet' },
    ],
  };
}
