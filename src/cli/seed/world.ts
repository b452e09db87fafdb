import type { MentionPool } from './blocks.js';
import { hash32, Rng } from './prng.js';
import { feedNames } from './vocabulary.js';

/** How much to generate. */
export interface SeedCounts {
  profiles: number;
  members: number;
  groups: number;
  feeds: number;
  posts: number;
  events: number;
}

export interface SeedOptions {
  /** Everything generated follows from it: the same seed and anchor give the same records. */
  seed: string;
  /** The "now" the dates spread around (epoch ms): events in the past and the future of it. */
  anchor: number;
  counts: SeedCounts;
}

export const dayMs = 24 * 60 * 60 * 1000;
const yearMs = 365 * dayMs;

/** A feed as other records need it: its id, chat channel and whether it shows in Home. */
export interface FeedRef {
  id: string;
  channelId: string;
  channelName: string;
  label: string;
  listed: boolean;
}

/**
 * The ids every section refers to, computed once from the seed: profiles (and their chat user
 * ids), feeds. Records themselves are generated on demand, chunk by chunk, so memory stays flat.
 */
export class SeedWorld {
  readonly profileIds: string[];
  /** Chat user id of each profile, or null for a profile without a chat account. */
  readonly chatUserIds: (string | null)[];
  readonly feeds: FeedRef[];
  readonly listedFeeds: FeedRef[];
  /** Who messages mention: the better-known members (the first profiles) and the feeds' channels. */
  readonly mentions: MentionPool;
  /** Two characters that keep chat ids of different seeds apart. */
  readonly tag: string;

  constructor(readonly options: SeedOptions) {
    const { seed, counts } = options;
    this.tag = hash32(seed).toString(36).toUpperCase().padStart(2, '0').slice(-2);
    this.profileIds = Array.from({ length: counts.profiles }, (_, i) => Rng.of(seed, 'profile-id', i).uuid());
    this.chatUserIds = this.profileIds.map((_, i) =>
      Rng.of(seed, 'profile-chat', i).chance(0.9) ? `U${this.tag}${i.toString(36).toUpperCase().padStart(6, '0')}` : null,
    );
    this.feeds = Array.from({ length: counts.feeds }, (_, k) => this.feedRef(k));
    this.listedFeeds = this.feeds.filter((feed) => feed.listed);
    this.mentions = {
      userIds: this.chatUserIds.slice(0, 2000).filter((id): id is string => id !== null),
      channelIds: this.feeds.map((feed) => feed.channelId),
    };
  }

  get seed(): string {
    return this.options.seed;
  }

  get anchor(): number {
    return this.options.anchor;
  }

  private feedRef(k: number): FeedRef {
    const rng = Rng.of(this.seed, 'feed-ref', k);
    const round = Math.floor(k / feedNames.length);
    const label = `${feedNames[k % feedNames.length]}${round > 0 ? ` ${round + 1}` : ''}`;
    const channelName = label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    // The first feeds are the busy, visible ones; later ones may be archived or unlisted.
    const listed = k < 3 || rng.chance(0.8);
    return { id: rng.uuid(), channelId: `C${this.tag}${k.toString(36).toUpperCase().padStart(6, '0')}`, channelName, label, listed };
  }

  /** A profile index skewed towards the first ones (active members post and host more). */
  someProfile(rng: Rng, power = 2): number {
    return rng.skewed(this.profileIds.length, power);
  }

  /** An instant rounded to five minutes, `from` to `to` years around the anchor. */
  instantAround(rng: Rng, fromYears: number, toYears: number): number {
    const ms = this.anchor + (fromYears + rng.next() * (toYears - fromYears)) * yearMs;
    return Math.floor(ms / 300_000) * 300_000;
  }
}
