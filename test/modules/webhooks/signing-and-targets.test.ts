import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { maxAttempts, retryDelay, scheduleSpanMs } from '../../../src/modules/webhooks/rules/retry-schedule.js';
import { newWebhookSecret, signatureHeader, signWebhook } from '../../../src/modules/webhooks/rules/signing.js';
import { isNonPublicAddress, parseWebhookUrl, resolveWebhookTarget } from '../../../src/modules/webhooks/rules/target-address.js';

describe('webhook signatures', () => {
  it('signs as the reference library does, and the library verifies it', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const body = JSON.stringify({ type: 'member.created', timestamp: '2026-11-23T10:00:00.000Z', data: { id: 'x', name: 'Zoë' } });
    const seconds = Math.floor(Date.now() / 1000);
    const ours = signWebhook(secret, 'msg_abc', seconds, body);
    assert.equal(ours, new Webhook(secret).sign('msg_abc', new Date(seconds * 1000), body));
    const headers = { 'webhook-id': 'msg_abc', 'webhook-timestamp': String(seconds), 'webhook-signature': ours };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('puts one signature per secret in the header, each verifiable alone', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const seconds = Math.floor(Date.now() / 1000);
    const header = signatureHeader([newSecret, oldSecret], 'msg_1', seconds, '{}');
    assert.equal(header.split(' ').length, 2);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(seconds), 'webhook-signature': header };
    for (const secret of [oldSecret, newSecret]) new Webhook(secret).verify('{}', headers);
    assert.throws(() => new Webhook(newWebhookSecret()).verify('{}', headers), /No matching signature/);
  });
});

describe('webhook retry schedule', () => {
  it('gives ten attempts over about three days, with jitter of at most 20%', () => {
    assert.equal(maxAttempts, 10);
    assert.ok(scheduleSpanMs > 70 * 3600_000 && scheduleSpanMs < 74 * 3600_000, String(scheduleSpanMs));
    assert.equal(
      retryDelay(1, () => 0.5),
      5000,
    );
    assert.equal(
      retryDelay(1, () => 0),
      4000,
    );
    assert.equal(
      retryDelay(1, () => 1),
      6000,
    );
    assert.equal(
      retryDelay(maxAttempts, () => 0.5),
      null,
    );
    for (let attempt = 1; attempt < maxAttempts - 1; attempt++) {
      assert.ok((retryDelay(attempt + 1, () => 0.5) as number) >= (retryDelay(attempt, () => 0.5) as number));
    }
  });
});

describe('webhook target rules', () => {
  it('refuses loopback, private, link-local, unique-local and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.1',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      'ff02::1',
    ]) {
      assert.equal(isNonPublicAddress(address), true, address);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isNonPublicAddress(address), false, address);
    }
  });

  it('allows https only, and http too when private targets are allowed', () => {
    assert.throws(() => parseWebhookUrl('http://example.com/hook', false), /must be an https URL/);
    assert.throws(() => parseWebhookUrl('ftp://example.com/hook', true), /http or https/);
    assert.throws(() => parseWebhookUrl('https://user:pw@example.com/hook', false), /credentials/);
    assert.throws(() => parseWebhookUrl('not a url', false), /absolute URL/);
    assert.equal(parseWebhookUrl('http://127.0.0.1:8080/hook', true).port, '8080');
  });

  it('checks every address a name resolves to, before any connection', async () => {
    const resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const url = new URL('https://hooks.example.com/in');
    await assert.rejects(resolveWebhookTarget(url, false, resolver), /resolves to 10\.0\.0\.7/);
    assert.equal((await resolveWebhookTarget(url, true, resolver)).address, '93.184.215.14');
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    await assert.rejects(resolveWebhookTarget(url, false, failing), /could not be resolved/);
    await assert.rejects(resolveWebhookTarget(new URL('https://[::1]:8443/x'), false), /::1/);
    await assert.rejects(resolveWebhookTarget(new URL('https://localhost/x'), false), /loopback/);
  });
});
