import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from '../../shared/copy-button.js';

/** A key's secret, shown once (the API keeps only its hash): copy it now. */
export function SecretOnce({ title, secret, note, onDone }: { title: string; secret: string; note?: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus goes to the secret's panel, so a keyboard or screen reader user lands on it.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="card secret" aria-labelledby="secret-title">
      <h2 id="secret-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>
        <strong>Copy the secret now: it will not be shown again.</strong> Only its fingerprint is kept; if it is lost, rotate the key to get
        a new one.
      </p>
      {note ? <p>{note}</p> : null}
      <p class="secret-value">
        <code class="secret-text">{secret}</code> <CopyButton value={secret} label="the secret" />
      </p>
      <div class="actions">
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}
