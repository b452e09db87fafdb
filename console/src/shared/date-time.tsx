const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Parses the API's instants, including posts' `YYYY-MM-DD HH:MM:SS.ffffff+00`. */
export function parseInstant(value: string): Date | null {
  const iso = /^\d{4}-\d{2}-\d{2} /.test(value) ? value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00') : value;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A date in the viewer's time zone, with the UTC time on hover. */
export function DateTime({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  const date = parseInstant(value);
  if (!date) return <span>{value}</span>;
  const utc = `${date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;
  return (
    <time dateTime={date.toISOString()} title={utc}>
      {local.format(date)}
    </time>
  );
}
