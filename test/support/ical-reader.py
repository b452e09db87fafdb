"""Reads an iCalendar document on stdin with Debian's python3-icalendar (an independent reader) and
prints what it understood as JSON: the calendar's properties and every VEVENT's fields, date-times
as UTC ISO 8601, text as decoded (escapes undone, lines unfolded)."""
import json
import sys
from datetime import timezone

from icalendar import Calendar


def text(component, name):
    value = component.get(name)
    return None if value is None else str(value)


def instant(component, name):
    if component.get(name) is None:
        return None
    return component.decoded(name).astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def categories(component):
    value = component.get('CATEGORIES')
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    found = []
    for item in values:
        cats = getattr(item, 'cats', None)
        found.extend(str(cat) for cat in (cats if cats is not None else [item]))
    return found


def main():
    data = sys.stdin.buffer.read()
    calendar = Calendar.from_ical(data.decode('utf-8'))
    events = []
    for event in calendar.walk('VEVENT'):
        alarms = []
        for alarm in event.walk('VALARM'):
            trigger = alarm.decoded('TRIGGER')
            alarms.append({'action': text(alarm, 'ACTION'), 'trigger_seconds': int(trigger.total_seconds()), 'description': text(alarm, 'DESCRIPTION')})
        events.append({
            'uid': text(event, 'UID'),
            'sequence': int(event.get('SEQUENCE')) if event.get('SEQUENCE') is not None else None,
            'dtstamp': instant(event, 'DTSTAMP'),
            'last_modified': instant(event, 'LAST-MODIFIED'),
            'created': instant(event, 'CREATED'),
            'dtstart': instant(event, 'DTSTART'),
            'dtend': instant(event, 'DTEND'),
            'summary': text(event, 'SUMMARY'),
            'description': text(event, 'DESCRIPTION'),
            'location': text(event, 'LOCATION'),
            'url': text(event, 'URL'),
            'status': text(event, 'STATUS'),
            'categories': categories(event),
            'alarms': alarms,
            'organizer': text(event, 'ORGANIZER'),
            'attendee': text(event, 'ATTENDEE'),
        })
    print(json.dumps({
        'version': text(calendar, 'VERSION'),
        'prodid': text(calendar, 'PRODID'),
        'name': text(calendar, 'NAME'),
        'x_wr_calname': text(calendar, 'X-WR-CALNAME'),
        'refresh_interval': text(calendar, 'REFRESH-INTERVAL'),
        'x_published_ttl': text(calendar, 'X-PUBLISHED-TTL'),
        'events': events,
    }))


main()
