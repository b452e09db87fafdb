import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { createFeed, event, importInto } from './fixtures.js';

/*
 * Subscribed by real calendar clients (issue 40): Debian's vdirsyncer syncs the feed over HTTP from
 * the server listening on 127.0.0.1 into a local folder (a vdir), and khal lists what it holds.
 */

const hasCommand = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const skip =
  hasCommand('vdirsyncer') && hasCommand('khal')
    ? false
    : 'vdirsyncer or khal is missing: apt-get install -y vdirsyncer khal (Debian), then run this file again';

/** Runs a client, without blocking this process: the server it talks to runs here. */
function run(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        encoding: 'utf8',
        // Loopback only: no proxy may take the request elsewhere.
        env: {
          PATH: process.env.PATH ?? '',
          HOME: env.HOME ?? tmpdir(),
          LANG: 'C.UTF-8',
          LC_ALL: 'C.UTF-8',
          NO_PROXY: '*',
          no_proxy: '*',
          ...env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** Folder with a vdirsyncer pair (the feed's URL into a vdir) and a khal configuration reading that vdir. */
function clientsFor(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-clients-'));
  const vdir = join(dir, 'calendars', 'feed');
  mkdirSync(vdir, { recursive: true });
  writeFileSync(
    join(dir, 'vdirsyncer.conf'),
    [
      '[general]',
      `status_path = "${join(dir, 'status')}/"`,
      '',
      '[pair community]',
      'a = "community_remote"',
      'b = "community_local"',
      'collections = null',
      'conflict_resolution = "a wins"',
      '',
      '[storage community_remote]',
      'type = "http"',
      `url = "${url}"`,
      '',
      '[storage community_local]',
      'type = "filesystem"',
      `path = "${vdir}/"`,
      'fileext = ".ics"',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'khal.conf'),
    [
      '[calendars]',
      '[[community]]',
      `path = ${vdir}/`,
      'type = calendar',
      '[locale]',
      'timeformat = %H:%M',
      'dateformat = %Y-%m-%d',
      'longdateformat = %Y-%m-%d',
      'datetimeformat = %Y-%m-%d %H:%M',
      'longdatetimeformat = %Y-%m-%d %H:%M',
      'local_timezone = UTC',
      'default_timezone = UTC',
      '[sqlite]',
      `path = ${join(dir, 'khal.db')}`,
      '',
    ].join('\n'),
  );
  const env = { HOME: dir };
  return {
    sync: async () => {
      await run('vdirsyncer', ['-c', join(dir, 'vdirsyncer.conf'), 'discover', 'community'], env);
      await run('vdirsyncer', ['-c', join(dir, 'vdirsyncer.conf'), 'sync'], env);
    },
    list: async () =>
      (
        await run(
          'khal',
          ['-c', join(dir, 'khal.conf'), 'list', '--day-format', '', '--format', '{cancelled}{start} {title}', '2026-11-01', '2027-01-31'],
          env,
        )
      )
        .split('\n')
        .filter(Boolean),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describeEachEngine(
  'calendar feeds: subscribed with vdirsyncer and listed by khal',
  (ctx) => {
    it('shows the events; after a move and a delete, a second sync shows the move and the deleted one cancelled', { skip }, async () => {
      const app: TestApp = ctx();
      const { auth, id } = await app.community('enterprise', 'Riverside Makers');
      await importInto(app, id, {
        calendar_events: [
          event(1, '2026-12-01T18:00:00Z', 3600_000, { title: 'Repair café', publish_to_site: true }),
          event(2, '2026-12-03T18:00:00Z', 3600_000, { title: 'Soldering workshop', publish_to_site: true }),
          event(3, '2026-12-05T10:00:00Z', 3600_000, { title: 'Board meeting', publish_to_site: true }),
          event(4, '2026-12-06T10:00:00Z', 3600_000, { title: 'Draft idea', status: 'draft', publish_to_site: true }),
        ],
      });
      await app.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.app.server.address() as AddressInfo;
      const feed = await createFeed(app, auth);
      assert.ok(feed.url?.startsWith(`http://127.0.0.1:${port}/calendar/`));
      const clients = clientsFor(feed.url as string);
      try {
        await clients.sync();
        assert.deepEqual(await clients.list(), [
          '2026-12-01 18:00 Repair café',
          '2026-12-03 18:00 Soldering workshop',
          '2026-12-05 10:00 Board meeting',
        ]);

        const moved = await app.request({
          method: 'PATCH',
          url: '/admin/v0/calendar_events/ev0000000002',
          headers: { ...auth, 'content-type': 'application/json' },
          payload: { start_date: '2026-12-04T19:30:00Z', end_date: '2026-12-04T21:00:00Z' },
        });
        assert.equal(moved.statusCode, 200);
        assert.equal(
          (await app.request({ method: 'DELETE', url: '/admin/v0/calendar_events/ev0000000003', headers: auth })).statusCode,
          200,
        );
        await clients.sync();
        assert.deepEqual(await clients.list(), [
          '2026-12-01 18:00 Repair café',
          '2026-12-04 19:30 Soldering workshop',
          'CANCELLED 2026-12-05 10:00 Board meeting',
        ]);
      } finally {
        clients.remove();
      }
    });
  },
  { env: { RATE_LIMIT_CALENDAR_PER_SECOND: '100000', RATE_LIMIT_CALENDAR_ADDRESS_PER_SECOND: '100000' } },
);
