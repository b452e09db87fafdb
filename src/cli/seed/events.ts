import type { CalendarEventImport } from '../../modules/calendar-events/schemas/import-record.js';
import { toIso } from '../../shared/clock.js';
import { epochMillis } from '../../shared/time.js';
import { richText } from './blocks.js';
import { Rng } from './prng.js';
import { allTags, cities, eventFormats, topics } from './vocabulary.js';
import { dayMs, type SeedWorld } from './world.js';

const titleCase = (id: string) =>
  id.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash ? ' ' : ''}${letter.toUpperCase()}`);

/** Minutes an event lasts: mostly an evening, sometimes a whole day, rarely a multi-day summit. */
function durationMinutes(rng: Rng): number {
  const roll = rng.next();
  if (roll < 0.95) return rng.pick([30, 45, 60, 90, 120, 150, 180]);
  if (roll < 0.99) return rng.int(6, 10) * 60;
  return rng.int(2, 4) * 24 * 60;
}

/** Attendees: past events collected sign-ups, upcoming ones are still filling; a few are big. */
function attendeeCount(rng: Rng, past: boolean, profiles: number): number {
  const big = rng.chance(0.01) ? 200 : 0;
  return Math.min(profiles, big + Math.floor(rng.next() ** 3 * (past ? 24 : 12)));
}

/**
 * Event `i`: a start from three years ago to two years ahead (so both "upcoming" and "past"
 * lists are long), all three statuses, hosts and speakers, tags of a few dozen, the feeds it was
 * published to, attendees, and a description with mentions, links and emoji.
 */
export function eventRecord(world: SeedWorld, i: number): CalendarEventImport {
  const rng = Rng.of(world.seed, 'event', i);
  const profiles = world.profileIds.length;
  const id = rng.alphanumeric(12);
  const start = world.instantAround(rng, -3, 2);
  const past = start < world.anchor;
  const minutes = durationMinutes(rng);
  const statusRoll = rng.next();
  const status = statusRoll < 0.8 ? 'published' : statusRoll < 0.92 ? 'draft' : 'needs_approval';
  const format = rng.pick(eventFormats);
  const topic = rng.pick(topics);
  const city = rng.pick(cities);
  const online = city === 'Online';
  const created = Math.min(start - rng.int(7, 60) * dayMs, world.anchor - rng.int(0, 10) * dayMs);
  const profile = (index: number) => world.profileIds[index] as string;
  const hosts = rng.distinct(profiles, rng.chance(0.8) ? 1 : 2, 3).map(profile);
  const speakers = rng.chance(0.3) ? rng.distinct(profiles, rng.int(1, 2), 2).map(profile) : [];
  const tags = rng.distinct(allTags.length, rng.int(0, 4), 1.5).map((t) => {
    const tag = allTags[t] as (typeof allTags)[number];
    return { id: tag.id, label: titleCase(tag.id), tag_group_id: tag.groupId };
  });
  const feeds = world.listedFeeds.length === 0 ? [] : rng.distinct(world.listedFeeds.length, rng.int(0, 2), 2);
  const attendees = rng.distinct(profiles, attendeeCount(rng, past, profiles), 1).map((index) => ({
    profile_id: profile(index),
    ...(rng.chance(0.3) ? { personal_join_link: `https://meet.example.com/j/${id}/${index}` } : {}),
  }));
  const title = `${format}: ${topic}${online ? ' (online)' : ` in ${city}`}`;
  return {
    id,
    status,
    start_date: toIso(epochMillis(start)),
    end_date: rng.chance(0.95) ? toIso(epochMillis(start + minutes * 60_000)) : null,
    title,
    description_chat_blocks: richText(rng, world.mentions, rng.int(1, 2), `description-${id}`),
    recap_chat_blocks: past && rng.chance(0.3) ? richText(rng, world.mentions, 1, `recap-${id}`) : [],
    allow_public_guest_list: rng.chance(0.4),
    enable_registration_button: rng.chance(0.6),
    show_end_date: rng.chance(0.5),
    is_unlisted: rng.chance(0.05),
    publish_to_site: rng.chance(0.7),
    triggers_webhooks: rng.chance(0.2),
    use_registration_btn_as_link: rng.chance(0.1),
    external_speakers: rng.chance(0.1) ? 'Guest speaker from a partner company' : '',
    link: online ? `https://meet.example.com/${id}` : '',
    location: online ? '' : `${city}, community space`,
    partner_event_id: rng.chance(0.05) ? `partner-${i}` : '',
    webhook_custom_metadata: '',
    recording_link: past && rng.chance(0.3) ? `https://www.youtube.com/watch?v=${id.slice(0, 11)}` : '',
    slug: `${title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}-${id.toLowerCase()}`,
    cover_image_url: rng.chance(0.5) ? `https://images.example.com/events/${i % 300}.jpg` : '',
    created_at: toIso(epochMillis(created)),
    updated_at: toIso(epochMillis(Math.min(world.anchor, created + rng.int(0, 5) * dayMs))),
    host_profile_ids: hosts,
    speaker_profile_ids: speakers,
    tags,
    published_to: feeds.map((k) => {
      const feed = world.listedFeeds[k];
      if (!feed) throw new RangeError(`no listed feed ${k}`);
      return {
        feed_id: feed.id,
        chat_channel_id: feed.channelId,
        chat_message_permalink: `https://community.slack.com/archives/${feed.channelId}/p${start}`,
      };
    }),
    reminders_config: rng.chance(0.5) ? [{ minutes: 60 }, { minutes: 1440 }] : [],
    attendees,
  };
}
