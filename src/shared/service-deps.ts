import type { ChatWorkspaceFactory } from '../chat/index.js';
import type { Database } from '../db/database.js';
import type { ActorDeps } from './activity.js';
import type { Clock } from './clock.js';
import type { SecretBox } from './secret-box.js';

/**
 * What varies from one run to the next, given to every service function the same way: as its first
 * argument, one object, narrowed with Pick to the parts the function uses (buildApp and the CLI
 * build it; tests give a test clock and a fake chat platform).
 */
export interface ServiceDeps {
  database: Database;
  clock: Clock;
  /** Builds the chat workspace client of a community's chat connection. */
  chat: ChatWorkspaceFactory;
  /** Seals and opens chat tokens at rest (SECRETS_KEY). */
  secrets: SecretBox;
}

export type DatabaseDeps = Pick<ServiceDeps, 'database'>;
/** A command's deps: the database, the clock, and who acts (the activity log's actor, docs/activity.md). */
export type StorageDeps = Pick<ServiceDeps, 'database' | 'clock'> & ActorDeps;
