import type { CountCache } from './caching/count-cache.js';
import type { RankedListCache } from './caching/ranked-lists.js';
import type { ResponseCache } from './caching/response-cache.js';
import type { ChatWorkspaceFactory } from './chat/index.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Metrics } from './metrics/metrics.js';
import type { Authenticator } from './modules/api-keys/api-keys.reads.js';
import type { Resolver } from './modules/webhooks/rules/target-address.js';
import type { Clock } from './shared/clock.js';
import type { SecretBox } from './shared/secret-box.js';

/** What route modules are given: the configured outside world, injected by buildApp. */
export interface AppServices {
  config: Config;
  database: Database;
  clock: Clock;
  authenticator: Authenticator;
  /** Builds the chat workspace client of a community's chat connection (a fake Slack in tests). */
  chat: ChatWorkspaceFactory;
  /** Seals and opens chat tokens at rest (SECRETS_KEY; values are stored as given without it). */
  secrets: SecretBox;
  /** Exact list totals, reused while the community's data version and the clock allow. */
  counts: CountCache;
  /** Serialised answers of the hot reads, reused on the same terms as the counts. */
  responses: ResponseCache;
  /** Searches' whole ranked results, reused while the community's posts are unchanged (docs/search.md). */
  rankings: RankedListCache;
  /** Prometheus metrics (METRICS_TOKEN or METRICS_PORT), or a no-op when they are off. */
  metrics: Metrics;
  /** How webhook target hosts are resolved (the system's resolver unless a test gives one that never leaves the machine). */
  webhookResolver?: Resolver;
  /** The base of public URLs (uploaded files): PUBLIC_BASE_URL, else the listening address. */
  publicBaseUrl: () => string;
}

/** Options every module's route plugin receives. */
export interface ModuleOptions {
  services: AppServices;
}
