import { layoutImageUrls, layoutParts } from './block-kit.js';
import { isRecord, MAX_NESTING_DEPTH, readElements, readNonEmptyString, readString } from './json-guards.js';

/** What a piece of rich text refers to, each list deduplicated in order of first appearance. */
export interface Mentions {
  userIds: string[];
  channelIds: string[];
  customEmojis: { alias: string; name: string; url: string }[];
  urls: {
    order_seen: number;
    is_embedded_media: boolean;
    is_image: boolean;
    is_video: boolean;
    url: string;
  }[];
}

const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg']);
const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set(['mp4', 'mov', 'webm', 'm4v']);
const EMBED_HOSTS = ['youtube.com', 'youtu.be', 'vimeo.com', 'loom.com'] as const;

/** Collects mentioned users and channels, custom emojis and links; never throws. */
export function extractMentions(blocks: unknown): Mentions {
  const mentions: Mentions = { userIds: [], channelIds: [], customEmojis: [], urls: [] };
  if (!Array.isArray(blocks)) return mentions;
  const seen = {
    users: new Set<string>(),
    channels: new Set<string>(),
    emojis: new Set<string>(),
    urls: new Set<string>(),
  };
  const visit = (element: unknown, depth: number): void => {
    if (depth > MAX_NESTING_DEPTH || !isRecord(element)) return;
    switch (element.type) {
      case 'user':
        addOnce(seen.users, readNonEmptyString(element, 'user_id'), (id) => mentions.userIds.push(id));
        break;
      case 'channel':
        addOnce(seen.channels, readNonEmptyString(element, 'channel_id'), (id) => mentions.channelIds.push(id));
        break;
      case 'emoji':
        // Standard emojis carry their code points; only custom ones need an image.
        if (readNonEmptyString(element, 'unicode') !== undefined) break;
        addOnce(seen.emojis, readNonEmptyString(element, 'name'), (name) =>
          mentions.customEmojis.push({ alias: name, name, url: readString(element, 'url') ?? '' }),
        );
        break;
      case 'link':
        addOnce(seen.urls, readNonEmptyString(element, 'url'), (url) =>
          mentions.urls.push({ order_seen: mentions.urls.length, ...classifyUrl(url), url }),
        );
        break;
    }
    for (const child of readElements(element) ?? []) visit(child, depth + 1);
  };
  const addImage = (url: string) =>
    addOnce(seen.urls, url, () =>
      // An image block says what it is, whatever the URL's extension.
      mentions.urls.push({ order_seen: mentions.urls.length, is_embedded_media: true, is_image: true, is_video: false, url }),
    );
  for (const block of blocks) {
    const layout = isRecord(block) ? layoutParts(block) : undefined;
    if (layout === undefined || !isRecord(block)) {
      visit(block, 1);
      continue;
    }
    // Layout blocks: the mentions and links of their mrkdwn texts, and their images, in order.
    for (const part of layout) if (part.kind === 'paragraph' || part.kind === 'heading') visit(part.section, 2);
    for (const url of layoutImageUrls(block)) addImage(url);
  }
  return mentions;
}

function addOnce(seen: Set<string>, value: string | undefined, add: (value: string) => void): void {
  if (value === undefined || seen.has(value)) return;
  seen.add(value);
  add(value);
}

// Only http(s) URLs are called media: consumers embed these in <img> and <video> tags.
function classifyUrl(url: string): { is_embedded_media: boolean; is_image: boolean; is_video: boolean } {
  const none = { is_embedded_media: false, is_image: false, is_video: false };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return none;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return none;
  const lastSegment = parsed.pathname.split('/').at(-1) ?? '';
  const dot = lastSegment.lastIndexOf('.');
  const extension = dot < 0 ? '' : lastSegment.slice(dot + 1).toLowerCase();
  const isImage = IMAGE_EXTENSIONS.has(extension);
  const isVideo = VIDEO_EXTENSIONS.has(extension);
  const host = parsed.hostname.toLowerCase();
  const embedHost = EMBED_HOSTS.some((domain) => host === domain || host.endsWith(`.${domain}`));
  return { is_embedded_media: isImage || isVideo || embedHost, is_image: isImage, is_video: isVideo };
}
