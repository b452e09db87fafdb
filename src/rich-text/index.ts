// Public API of the rich-text module: pure functions over chat rich text blocks.

export type { ReferenceLookup } from './build-references.js';
export { buildReferences, emptyReferences, renderOptionsFromReferences } from './build-references.js';
export type { Mentions } from './extract-mentions.js';
export { extractMentions } from './extract-mentions.js';
export type { RenderOptions } from './inline-runs.js';
export { readTimeMinutes } from './read-time.js';
export { renderMarkdown } from './render-markdown.js';
export { renderPlaintext } from './render-plaintext.js';
export type { ProseMirrorDoc, ProseMirrorMark, ProseMirrorNode } from './render-prosemirror.js';
export { renderProseMirror } from './render-prosemirror.js';
export * from './rich-text.schemas.js';
export { blockFailures, validateBlocks } from './validate-blocks.js';
