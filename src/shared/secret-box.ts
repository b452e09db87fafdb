import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '../config.js';

/*
 * Chat tokens and signing secrets at rest. With SECRETS_KEY set, a stored value is
 * `sealed:v1:<key id>:<iv>:<tag>:<ciphertext>` (AES-256-GCM, base64url parts, the key id being the
 * first 8 hex digits of the key's SHA-256, so a value says which key opens it). Without a key,
 * values are stored as given (a deployment without a key has chosen that; docs/chat.md).
 */

const prefix = 'sealed:v1:';

/** 32 bytes as base64 (standard or url-safe, padded or not) or as 64 hex digits. */
function keyBytes(text: string, variable: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 32)
    throw new ConfigError(
      `Invalid configuration: ${variable} must be 32 random bytes, as base64 or 64 hex digits (e.g. openssl rand -base64 32)`,
    );
  return bytes;
}

const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export class SecretBox {
  private readonly current: { id: string; key: Buffer } | null;
  private readonly byId = new Map<string, Buffer>();

  constructor(settings: { key: string | null; previousKeys: string[] }) {
    this.current = settings.key === null ? null : { key: keyBytes(settings.key, 'SECRETS_KEY'), id: '' };
    if (this.current) {
      this.current.id = keyId(this.current.key);
      this.byId.set(this.current.id, this.current.key);
    }
    for (const previous of settings.previousKeys) {
      const key = keyBytes(previous, 'SECRETS_KEY_PREVIOUS');
      this.byId.set(keyId(key), key);
    }
  }

  /** True when values are sealed with the current key (rotation: false for values still sealed with an older one). */
  isCurrent(stored: string): boolean {
    if (!this.current) return !stored.startsWith(prefix);
    return stored.startsWith(`${prefix}${this.current.id}:`);
  }

  seal(plain: string): string {
    if (!this.current) return plain;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'));
    return `${prefix}${this.current.id}:${parts.join(':')}`;
  }

  open(stored: string): string {
    if (!stored.startsWith(prefix)) return stored;
    const [id, iv, tag, body] = stored.slice(prefix.length).split(':');
    const key = id === undefined ? undefined : this.byId.get(id);
    if (key === undefined || iv === undefined || tag === undefined || body === undefined) {
      // Never the value itself: only which key it needs.
      throw new ConfigError(
        `A stored chat secret is sealed with key ${id ?? '?'}, which neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS holds.`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
