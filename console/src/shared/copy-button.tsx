import { useState } from 'preact/hooks';

/** Copies `value` to the clipboard; says so (to screen readers too). `label` names what is copied. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied');
    } catch {
      setSaid('Copy failed: select the text and copy it');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy} aria-label={`Copy ${label}`}>
        Copy
      </button>
      <output class="copy-said">{said}</output>
    </span>
  );
}
