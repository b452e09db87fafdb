/* Words the generator draws from: enough variety that lists, titles and bodies look like a real community. */

export const firstNames = [
  'Ada', 'Amara', 'Ana', 'Ben', 'Carlos', 'Chen', 'Chloé', 'Dmitri', 'Elena', 'Emeka', 'Farah', 'Grace', 'Hana', 'Hugo',
  'Ines', 'Ivan', 'Jamal', 'Jonas', 'Kai', 'Keiko', 'Lars', 'Leila', 'Lucía', 'Maya', 'Mehdi', 'Nadia', 'Noah', 'Olu',
  'Priya', 'Quentin', 'Rafael', 'Rosa', 'Sami', 'Sofia', 'Tariq', 'Tomás', 'Uma', 'Victor', 'Wei', 'Yara', 'Zoë', 'Zaid',
] as const;

export const lastNames = [
  'Adeyemi', 'Andersen', 'Bauer', 'Bianchi', 'Chowdhury', 'Costa', 'Dubois', 'Eriksson', 'Fernández', 'García', 'Haddad',
  'Ito', 'Jensen', 'Kim', 'Kowalski', 'Lee', 'Martin', 'Müller', 'Nakamura', 'Nguyen', "O'Brien", 'Okafor', 'Patel',
  'Petrov', 'Quispe', 'Rossi', 'Santos', 'Schmidt', 'Singh', 'Tanaka', 'Van Dijk', 'Wang', 'Yilmaz', 'Zhang',
] as const;

export const domains = ['example.com', 'example.org', 'mail.example.net', 'acme.example', 'studio.example'] as const;

export const topics = [
  'TypeScript', 'Rust', 'design systems', 'accessibility', 'observability', 'PostgreSQL', 'product discovery', 'hiring',
  'remote work', 'open source', 'machine learning', 'onboarding', 'pricing', 'community building', 'security', 'testing',
  'performance', 'mentoring', 'career growth', 'UX research', 'data pipelines', 'mobile apps', 'public speaking', 'writing',
] as const;

export const eventFormats = ['Meetup', 'Workshop', 'AMA', 'Office hours', 'Fireside chat', 'Demo day', 'Book club', 'Hack night', 'Panel', 'Coffee chat'] as const;

export const cities = ['Berlin', 'Lisbon', 'Lagos', 'São Paulo', 'Toronto', 'Seoul', 'Nairobi', 'Kraków', 'Austin', 'Melbourne', 'Online'] as const;

export const words = [
  'community', 'team', 'project', 'release', 'question', 'idea', 'feedback', 'roadmap', 'launch', 'meeting', 'notes',
  'draft', 'proposal', 'weekly', 'update', 'thanks', 'welcome', 'help', 'tip', 'guide', 'resource', 'recording', 'slides',
  'thread', 'survey', 'results', 'plan', 'budget', 'event', 'speaker', 'venue', 'sponsor', 'volunteer', 'newsletter',
  'quarter', 'goal', 'metric', 'experiment', 'lesson', 'story', 'win', 'challenge', 'deadline', 'workshop', 'demo',
] as const;

export const sentences = [
  'Thanks everyone who joined last time, the questions were great.',
  'Here is a quick summary of what we discussed and what comes next.',
  'We are looking for volunteers to help with the next edition.',
  'If you have ideas for topics, reply in the thread below.',
  'The recording and the slides are linked at the end of this post.',
  'Please introduce yourself and tell us what you are working on.',
  'We tried a new format this month and would love your feedback.',
  'Doors open thirty minutes before the start, snacks included.',
  'Bring a laptop if you want to follow along with the exercises.',
  'Our sponsor is hiring, see the link for open positions.',
  'A reminder that our code of conduct applies to every channel.',
  'This week we hit a milestone, a big thank you to all contributors.',
] as const;

/** Standard emojis (with code points) and a few custom ones (no code points: shown as images). */
export const emojis = [
  { name: 'tada', unicode: '1f389' },
  { name: 'wave', unicode: '1f44b' },
  { name: 'rocket', unicode: '1f680' },
  { name: 'sparkles', unicode: '2728' },
  { name: 'thumbsup', unicode: '1f44d' },
  { name: 'heart', unicode: '2764-fe0f' },
  { name: 'eyes', unicode: '1f440' },
  { name: 'partyparrot' },
  { name: 'shipit' },
] as const;

export const feedNames = [
  'Announcements', 'General', 'Introductions', 'Events', 'Jobs', 'Show and tell', 'Help', 'Random', 'Resources', 'Feedback',
  'Design', 'Engineering', 'Product', 'Marketing', 'Off topic', 'Wins', 'Reading list', 'Local chapters', 'Mentoring', 'Meta',
] as const;

/** Tag groups and their tags: a few dozen tag ids, as communities use to classify events. */
export const tagGroups = [
  { id: 'format', tags: ['meetup', 'workshop', 'ama', 'panel', 'talk', 'social'] },
  { id: 'level', tags: ['beginner', 'intermediate', 'advanced'] },
  { id: 'topic', tags: ['frontend', 'backend', 'data', 'design', 'devops', 'security', 'career', 'ai', 'mobile', 'product'] },
  { id: 'region', tags: ['emea', 'americas', 'apac', 'online'] },
  { id: 'audience', tags: ['members', 'partners', 'public', 'sponsors'] },
  { id: 'series', tags: ['monthly-meetup', 'office-hours', 'book-club', 'hack-night', 'demo-day', 'summit'] },
] as const;

export const allTags: readonly { id: string; groupId: string }[] = tagGroups.flatMap((group) => group.tags.map((id) => ({ id, groupId: group.id })));
