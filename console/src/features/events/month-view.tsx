import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { Loaded } from '../../shared/states.js';
import { useRequest } from '../../shared/use-request.js';
import { type CalendarEvent, type EventStatus, eventsOfMonth } from './events.data.js';

const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const timeOf = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const dayKey = (date: Date) => `${date.getFullYear()}-${date.getMonth()}-${date.getDate()}`;

/** A month of events, one list per day with events (a grid would not fit 360 px). */
export function MonthView({ status }: { status: EventStatus }) {
  const client = useClient();
  const [month, setMonth] = useState(() => new Date(new Date().getFullYear(), new Date().getMonth(), 1));
  const state = useRequest(() => eventsOfMonth(client, status, month), [status, month.getTime()]);
  const shift = (by: number) => setMonth(new Date(month.getFullYear(), month.getMonth() + by, 1));
  return (
    <section aria-labelledby="month-title" class="month">
      <div class="month-head">
        <button type="button" onClick={() => shift(-1)} aria-label="Previous month">
          ‹
        </button>
        <h2 id="month-title">{monthName.format(month)}</h2>
        <button type="button" onClick={() => shift(1)} aria-label="Next month">
          ›
        </button>
      </div>
      <Loaded state={state} what="the month">
        {(events) => <Days month={month} events={events} />}
      </Loaded>
    </section>
  );
}

function Days({ month, events }: { month: Date; events: CalendarEvent[] }) {
  const byDay = new Map<string, CalendarEvent[]>();
  for (const event of events) {
    const key = dayKey(new Date(event.start_date ?? ''));
    byDay.set(key, [...(byDay.get(key) ?? []), event]);
  }
  const days = new Date(month.getFullYear(), month.getMonth() + 1, 0).getDate();
  const first = new Date(month.getFullYear(), month.getMonth(), 1).getDay();
  const cells: (Date | null)[] = [...Array.from({ length: (first + 6) % 7 }, () => null)];
  for (let d = 1; d <= days; d++) cells.push(new Date(month.getFullYear(), month.getMonth(), d));
  return (
    <ol class="month-grid">
      {cells.map((day, i) =>
        day ? (
          <li key={dayKey(day)} class={byDay.has(dayKey(day)) ? 'day has-events' : 'day'}>
            <span class="day-number">{day.getDate()}</span>
            {(byDay.get(dayKey(day)) ?? []).map((event) => (
              <span class="day-event" key={event.id}>
                {timeOf.format(new Date(event.start_date ?? ''))} {event.title}
              </span>
            ))}
          </li>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the blank cells before the first day have nothing else to key on.
          <li key={`blank-${i}`} class="day blank" aria-hidden="true" />
        ),
      )}
    </ol>
  );
}
