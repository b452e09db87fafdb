import { isRecord, type JsonRecord, readElements, readNonEmptyString, readString } from './json-guards.js';
import { mrkdwnElements } from './mrkdwn.js';

/*
 * Block Kit layout blocks (`section`, `header`, `context`, `divider`, `image`) as the chat
 * platform writes them beside `rich_text` blocks (feed purposes and topics are `section`
 * blocks with a `mrkdwn` text object). They are stored verbatim; this is how the renderers
 * and the mention extraction read them: each becomes the parts a reader sees.
 */

/** What one layout block shows: paragraphs of inline elements, a heading, a rule or an image. */
export type LayoutPart =
  | { readonly kind: 'paragraph' | 'heading'; readonly section: JsonRecord }
  | { readonly kind: 'rule' }
  | { readonly kind: 'image'; readonly url: string; readonly alt: string; readonly title: string };

/** The parts of a layout block, or undefined for a block that is not one (rich_text, unknown types). */
export function layoutParts(block: JsonRecord): LayoutPart[] | undefined {
  switch (block.type) {
    case 'section': {
      const texts = [block.text, ...(Array.isArray(block.fields) ? block.fields : [])];
      return texts.flatMap((text): LayoutPart[] => {
        const elements = textObjectElements(text);
        return elements.length === 0 ? [] : [{ kind: 'paragraph', section: sectionOf(elements) }];
      });
    }
    case 'header': {
      const elements = textObjectElements(block.text);
      return elements.length === 0 ? [] : [{ kind: 'heading', section: sectionOf(elements) }];
    }
    case 'context': {
      // Texts and images side by side on one line: the texts, separated by a space.
      const texts = (readElements(block) ?? []).map(textObjectElements).filter((elements) => elements.length > 0);
      const elements = texts.flatMap((part, index) => (index === 0 ? part : [{ type: 'text', text: ' ' }, ...part]));
      return elements.length === 0 ? [] : [{ kind: 'paragraph', section: sectionOf(elements) }];
    }
    case 'divider':
      return [{ kind: 'rule' }];
    case 'image': {
      const url = imageUrlOf(block);
      if (url === undefined) return [];
      const title = isRecord(block.title) ? (readString(block.title, 'text') ?? '') : '';
      return [{ kind: 'image', url, alt: readString(block, 'alt_text') ?? '', title }];
    }
    default:
      return undefined;
  }
}

/** The image URLs of a layout block (an `image` block, images in a `context`), for references. */
export function layoutImageUrls(block: JsonRecord): string[] {
  if (block.type === 'image') return [imageUrlOf(block)].filter((url): url is string => url !== undefined);
  if (block.type !== 'context') return [];
  return (readElements(block) ?? []).flatMap((element) => {
    if (!isRecord(element) || element.type !== 'image') return [];
    const url = imageUrlOf(element);
    return url === undefined ? [] : [url];
  });
}

// An image is given by `image_url`, or by `slack_file: {url}` (a file of the workspace; one
// given only by `slack_file: {id}` has no URL to show).
function imageUrlOf(image: JsonRecord): string | undefined {
  return readNonEmptyString(image, 'image_url') ?? (isRecord(image.slack_file) ? readNonEmptyString(image.slack_file, 'url') : undefined);
}

/** The inline elements of a Block Kit text object: `mrkdwn` is read, `plain_text` is text as it stands. */
function textObjectElements(value: unknown): JsonRecord[] {
  if (!isRecord(value)) return [];
  const text = readString(value, 'text');
  if (text === undefined || text === '') return [];
  // `verbatim` only stops the chat platform from linking bare names and URLs: `<@U1>` still is a mention.
  if (value.type === 'mrkdwn') return mrkdwnElements(text);
  return value.type === 'plain_text' ? [{ type: 'text', text }] : [];
}

function sectionOf(elements: JsonRecord[]): JsonRecord {
  return { type: 'rich_text_section', elements };
}
