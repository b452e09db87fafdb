import type { FeedImport } from '../../modules/feeds/feeds.schemas.js';
import type { PostImport } from '../../modules/posts/posts.schemas.js';
import { toIso } from '../../shared/clock.js';
import { epochMillis } from '../../shared/time.js';
import { richText } from './blocks.js';
import { Rng } from './prng.js';
import { emojis, topics, words } from './vocabulary.js';
import { dayMs, type SeedWorld } from './world.js';

/** Feed `k`: the first ones busy and visible; later ones sometimes archived or unlisted (out of Home). */
export function feedRecord(world: SeedWorld, k: number): FeedImport {
  const ref = world.feeds[k];
  if (!ref) throw new RangeError(`no feed ${k}`);
  const rng = Rng.of(world.seed, 'feed', k);
  const archived = !ref.listed && rng.chance(0.5);
  const created = world.instantAround(rng, -5, -1);
  return {
    id: ref.id,
    label: ref.label,
    public_id: `f${world.tag.toLowerCase()}${k}`,
    created_at: toIso(epochMillis(created)),
    updated_at: toIso(epochMillis(created + rng.int(0, 300) * dayMs)),
    emoji_icon: rng.pick(emojis).name,
    list_view_display_format: rng.pick(['card', 'snippet']),
    post_detail_display_format: 'discussion',
    chat_channel_id: ref.channelId,
    chat_channel_name: ref.channelName,
    chat_channel_num_members: rng.int(3, Math.max(3, world.profileIds.length)),
    chat_channel_is_private: rng.chance(0.1),
    chat_channel_purpose_chat_blocks: richText(rng, world.mentions, 1, `purpose-${k}`),
    chat_channel_topic_chat_blocks: rng.chance(0.5) ? richText(rng, world.mentions, 1, `topic-${k}`) : [],
    is_archived: archived,
    is_unlisted: !ref.listed && !archived,
    show_in_navigation_menu: ref.listed,
    is_site_posting_enabled: rng.chance(0.5),
    visibility: rng.pick(['public', 'members', 'disabled']),
    sync_all_incoming_messages: rng.chance(0.7),
    stores_new_messages: true,
    ai_titles_enabled: rng.chance(0.3),
    show_pinned_posts: rng.chance(0.5),
    allow_selected_answer: k === 6,
    preset: rng.pick(['discussion', 'announcements', 'questions']),
  };
}

/**
 * Post `i`: a chat message with rich text in a feed (a few feeds get most posts), by an author
 * (a few members write most), over the last three years; activity continues after some of them.
 */
export function postRecord(world: SeedWorld, i: number): PostImport {
  const rng = Rng.of(world.seed, 'post', i);
  const feed = world.feeds[rng.skewed(world.feeds.length, 1.8)];
  if (!feed) throw new RangeError('a post needs at least one feed');
  const author = world.someProfile(rng, 2.5);
  const content = world.instantAround(rng, -3, -0.001);
  const activity = Math.min(world.anchor, content + Math.floor(rng.next() ** 4 * 90 * dayMs));
  const title = `${rng.pick(words)} ${rng.pick(words)}: ${rng.pick(topics)}`;
  const messageTs = content / 1000;
  const long = rng.chance(0.05);
  return {
    id: rng.uuid(),
    feed_id: feed.id,
    author_profile_id: world.profileIds[author] as string,
    created_at: toIso(epochMillis(content)),
    updated_at: toIso(epochMillis(activity)),
    content_created_at: toIso(epochMillis(content)),
    latest_activity_at: toIso(epochMillis(activity)),
    title: title.charAt(0).toUpperCase() + title.slice(1),
    post_detail_display_format: 'discussion',
    source: 'chat',
    file_attachments_count: rng.chance(0.15) ? rng.int(1, 4) : 0,
    reactions_count: Math.floor(rng.next() ** 3 * 60),
    comments_count: Math.floor(rng.next() ** 3 * 40),
    chat_message: {
      id: rng.uuid(),
      message_ts: messageTs,
      blocks: richText(rng, world.mentions, long ? rng.int(4, 8) : rng.int(1, 3), `post-${i}`),
      permalink: `https://community.slack.com/archives/${feed.channelId}/p${Math.floor(messageTs * 1e6)}`,
      username: '',
      icon: '',
    },
    cover_image_url: rng.chance(0.2) ? `https://images.example.com/covers/${i % 500}.jpg` : '',
  };
}
