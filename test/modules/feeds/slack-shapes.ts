// Chat data as the chat platform (Slack) really produces it, for the import tests. The shapes
// follow Slack's own documentation (docs.slack.dev, Block Kit reference: the rich text block and
// its rich_text_list {style, indent, offset, border}, rich_text_quote, rich_text_preformatted
// {border} and emoji {name, unicode} elements; the section {text, fields}, header, context,
// divider and image {image_url, alt_text, title} blocks; mrkdwn and plain_text text objects) and
// the fields real conversations.history answers carry beyond the documentation (emoji
// `skin_tone`, listed in the Node Slack SDK's generated response types). A message's `ts` is a
// string. Written for these tests, not copied from anywhere.

/** A message written in the Slack client (rich text) and posted with app blocks around it. */
export const slackMessage = {
  type: 'message',
  user: 'U0SLACK1',
  ts: '1747250195.525399',
  text: 'Launch notes',
  blocks: [
    { type: 'header', block_id: 'hdr', text: { type: 'plain_text', text: 'Launch notes :rocket:', emoji: true } },
    {
      type: 'section',
      block_id: 'intro',
      text: {
        type: 'mrkdwn',
        text: 'Hi <@U0SLACK2>, see <#C0SLACK1|general> and <https://example.com/notes?a=1&amp;b=2|the *notes*>. *Ship it* _today_ ~not~ `now`',
      },
      fields: [
        { type: 'mrkdwn', text: '*Owner*\n<@U0SLACK1>' },
        { type: 'plain_text', text: 'Due: Friday', emoji: true },
      ],
    },
    { type: 'divider', block_id: 'div' },
    {
      type: 'rich_text',
      block_id: 'rt1',
      elements: [
        {
          type: 'rich_text_section',
          elements: [
            { type: 'text', text: 'Thanks ', style: { bold: true } },
            { type: 'user', user_id: 'U0SLACK2' },
            { type: 'text', text: ' ' },
            { type: 'emoji', name: 'yarn' },
            { type: 'text', text: ' ' },
            { type: 'emoji', name: 'heart', unicode: '2764-fe0f' },
            { type: 'text', text: ' ' },
            { type: 'emoji', name: 'wave', unicode: '1f44b-1f3fd', skin_tone: 4 },
            { type: 'text', text: '\n' },
          ],
        },
        {
          type: 'rich_text_list',
          style: 'bullet',
          indent: 0,
          border: 0,
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'one' }] }],
        },
        {
          type: 'rich_text_list',
          style: 'ordered',
          indent: 1,
          offset: 2,
          border: 1,
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'three' }] }],
        },
        { type: 'rich_text_preformatted', border: 0, elements: [{ type: 'text', text: 'npm test' }] },
        {
          type: 'rich_text_quote',
          border: 0,
          elements: [
            { type: 'text', text: 'Quoted by ' },
            { type: 'broadcast', range: 'here' },
            { type: 'text', text: ' ' },
            { type: 'link', url: 'https://example.com/q' },
          ],
        },
      ],
    },
    {
      type: 'context',
      block_id: 'ctx',
      elements: [
        { type: 'image', image_url: 'https://example.com/avatar', alt_text: 'avatar' },
        { type: 'mrkdwn', text: 'Posted by <@U0SLACK1>' },
      ],
    },
    {
      type: 'image',
      block_id: 'img',
      image_url: 'https://example.com/launch',
      alt_text: 'The launch [photo]',
      title: { type: 'plain_text', text: 'Launch', emoji: true },
    },
    // A block this project has never heard of: kept, shown as nothing.
    { type: 'call', block_id: 'call', call_id: 'R0CALL' },
  ],
};

/** A channel purpose as Slack gives it for a feed: a section with a mrkdwn text object. */
export const slackPurposeBlocks = [
  { type: 'section', text: { type: 'mrkdwn', text: 'Company-wide announcements for <!channel>, by <@U0SLACK1>' } },
];

/** A channel topic as Slack gives it. */
export const slackTopicBlocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'Launch week :rocket:', verbatim: false } }];
