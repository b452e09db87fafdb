/** Every page of the console: its path under /console and its name (the nav link and the page's h1). */
export const pages = [
  { path: '/console/', name: 'Overview' },
  { path: '/console/events', name: 'Events' },
  { path: '/console/members', name: 'Members' },
  { path: '/console/posts', name: 'Posts' },
  { path: '/console/files', name: 'Files' },
  { path: '/console/awards', name: 'Awards' },
  { path: '/console/api-keys', name: 'API keys' },
  { path: '/console/webhooks', name: 'Webhooks' },
  { path: '/console/slack', name: 'Slack' },
  { path: '/console/activity', name: 'Activity' },
] as const;

export type PageName = (typeof pages)[number]['name'];
