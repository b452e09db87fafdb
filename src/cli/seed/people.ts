import type { GroupImport } from '../../modules/groups/groups.schemas.js';
import type { ProfileImport } from '../../modules/profiles/profiles.schemas.js';
import { toIso } from '../../shared/clock.js';
import { epochMillis } from '../../shared/time.js';
import { Rng } from './prng.js';
import { cities, domains, firstNames, lastNames, topics } from './vocabulary.js';
import type { SeedWorld } from './world.js';

/** A `members` record of the import file (the section's schema is private to its module). */
export interface MemberRecord {
  id: string;
  email: string;
  full_name: string;
  avatar_url_original: string | null;
  chat_profile_id: string | null;
  state: 'active' | 'deactivated' | 'forgotten';
}

interface Person {
  first: string;
  last: string;
  email: string;
}

const ascii = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();

/** The name and email of profile `i` (members linked to it share them). */
function personOf(world: SeedWorld, i: number): Person {
  const rng = Rng.of(world.seed, 'person', i);
  const first = rng.pick(firstNames);
  const last = rng.pick(lastNames);
  // The index keeps emails unique; the names keep them looking like emails.
  return { first, last, email: `${ascii(first)}.${ascii(last)}.${i}@${rng.pick(domains)}` };
}

export function profileRecord(world: SeedWorld, i: number): ProfileImport {
  const rng = Rng.of(world.seed, 'profile', i);
  const { first, last, email } = personOf(world, i);
  const id = world.profileIds[i] as string;
  const chatUserId = world.chatUserIds[i] ?? null;
  // Chat platforms serve avatars at eight sizes from one short path per user.
  const image = (size: string) => `https://avatars.example.com/${world.tag}${i.toString(36)}_${size}.png`;
  const hasImage = rng.chance(0.6);
  const images = hasImage
    ? {
        preferred_image_original: image('original'),
        preferred_image_1024: image('1024'),
        preferred_image_512: image('512'),
        preferred_image_192: image('192'),
        preferred_image_72: image('72'),
        preferred_image_48: image('48'),
        preferred_image_32: image('32'),
        preferred_image_24: image('24'),
      }
    : {};
  return {
    profile_id: id,
    email,
    created_at: toIso(epochMillis(world.instantAround(rng, -4, -0.01))),
    preferred_name: rng.chance(0.2) ? first : `${first} ${last}`,
    ...images,
    first_name: first,
    last_name: last,
    chat_user_id: chatUserId,
    chat_is_admin: chatUserId !== null && i < 20 && rng.chance(0.5),
    chat_is_bot: chatUserId !== null && rng.chance(0.005),
    ...(chatUserId === null
      ? {}
      : {
          chat_first_name: first,
          chat_last_name: last,
          chat_image_72: hasImage ? image('72') : '',
          chat_image_original: hasImage ? image('original') : '',
        }),
  };
}

/** Member `i`: most are the member side of profile `i` (same email, linked); some never joined the chat. */
export function memberRecord(world: SeedWorld, i: number): MemberRecord {
  const rng = Rng.of(world.seed, 'member', i);
  const linked = i < world.profileIds.length && rng.chance(0.85);
  const person = personOf(world, i);
  const roll = rng.next();
  return {
    id: rng.uuid(),
    email: linked ? person.email : `guest.${ascii(person.first)}.${i}@${rng.pick(domains)}`,
    full_name: `${person.first} ${person.last}`,
    avatar_url_original: rng.chance(0.5) ? `https://avatars.example.com/members/${i}.png` : null,
    chat_profile_id: linked ? (world.profileIds[i] as string) : null,
    state: roll < 0.92 ? 'active' : roll < 0.98 ? 'deactivated' : 'forgotten',
  };
}

/** Group `j`: chapters, interest circles and a small admin group, from a handful to thousands of members. */
export function groupRecord(world: SeedWorld, j: number): GroupImport {
  const rng = Rng.of(world.seed, 'group', j);
  const profiles = world.profileIds.length;
  const name = j === 0 ? 'Admins' : j % 2 === 1 ? `${rng.pick(cities)} chapter ${j}` : `${rng.pick(topics)} circle ${j}`;
  const size = j === 0 ? Math.min(10, profiles) : Math.min(profiles, Math.max(3, Math.floor(rng.next() ** 3 * Math.min(profiles, 3000))));
  const members = rng.distinct(profiles, size, j === 0 ? 3 : 1).map((index) => world.profileIds[index] as string);
  return { id: `group-${world.tag.toLowerCase()}-${j}`, name, member_profile_ids: members };
}
