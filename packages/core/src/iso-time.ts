import { z } from 'zod';

/** Two digits. */
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
/** Three digits. */
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** 9999-12-31T23:59:59.999Z plus one: past it `toISOString` writes six-digit years. */
const YEAR_10000 = 253_402_300_800_000;

/**
 * The text of `new Date(ms).toISOString()` (`YYYY-MM-DDTHH:mm:ss.sssZ`), made without a `Date`:
 * about 0.14 µs against 0.46 here. Every status read writes a time per history entry
 * (`extendedStatuses[].dt`): `toISOString` took about 3 % of a loaded HTTP thread's time on status
 * reads (`docs/decisions.md`, "Speed, twenty-first pass"). The date is the proleptic Gregorian
 * calendar's, from the days since 1970 (Howard Hinnant's `civil_from_days`); times before 1970 or
 * after 9999 and anything but a whole number of milliseconds go to `toISOString` itself (which
 * throws on an invalid time, as before).
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000 && Number.isInteger(ms))) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  // civil_from_days: eras of 400 years (146,097 days) starting on 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${year}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}

/**
 * What a date-time without an offset means: refused (`'refuse'`: a schedule read in the server's
 * time zone would be off by hours, silently), or UTC (`'utc'`).
 */
export type WithoutOffset = 'refuse' | 'utc';

/** What {@link readIsoTime} answers: ms since the epoch, or why the text is not a time it takes. */
export type IsoTimeReading = { ms: number } | { error: 'format' | 'no_offset' };

/**
 * ISO 8601 extended date-time: `T` (or `t`, or a space, as RFC 3339 permits) between date and
 * time, seconds and their fraction optional, and an offset `Z`, `±hh:mm`, `±hhmm` or `±hh`.
 */
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)?$/;

/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Reads an ISO 8601 date-time as a client of a production API writes it: RFC 3339
 * (`2026-12-01T20:00:00+03:00`) and the extended forms ISO 8601 adds to it, without seconds
 * (`2026-12-01T20:00Z`) and with an offset without its colon (`+0300`) or minutes (`+03`). A
 * fraction beyond milliseconds is cut. The date and time must exist (no 30 February, no 24:00, no
 * leap second, offsets within ±23:59). One reader for every time field of the API, so that each
 * takes the same forms; `withoutOffset` is the field's own rule for a time without an offset.
 *
 * @example
 * readIsoTime('2026-12-01T20:00+0300', 'refuse') // { ms: 1796144400000 }
 * readIsoTime('2026-12-01T20:00:00', 'refuse') // { error: 'no_offset' }
 */
export function readIsoTime(text: string, withoutOffset: WithoutOffset): IsoTimeReading {
  const m = DATE_TIME.exec(text);
  if (!m) return { error: 'format' };
  const [, y, mo, d, h, mi, s = '0', fraction = '', zulu, sign, oh, om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hours = Number(h);
  const minutes = Number(mi);
  const seconds = Number(s);
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = (MONTH_DAYS[month - 1] ?? 0) + (leap ? 1 : 0);
  if (day < 1 || day > monthDays || hours > 23 || minutes > 59 || seconds > 59) return { error: 'format' };
  let offsetMinutes = 0;
  if (sign !== undefined) {
    if (Number(oh) > 23 || Number(om) > 59) return { error: 'format' };
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  } else if (zulu === undefined && withoutOffset === 'refuse') {
    return { error: 'no_offset' };
  }
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  return { ms: utc.setUTCHours(hours, minutes - offsetMinutes, seconds, millis) };
}

/** Forms every time field takes, for its error messages and its OpenAPI description. */
const FORMS = '2026-12-01T20:00:00+03:00, 2026-12-01T20:00+0300 or 2026-12-01T17:00Z';

/**
 * A time field of a request, read by {@link readIsoTime} into ms since the epoch. `name` starts
 * each message (`scheduledAt must be ...`), as the field's API writes its messages.
 *
 * @example
 * z.object({ sheduledSent: isoTimeSchema({ withoutOffset: 'refuse' }) })
 */
export function isoTimeSchema(options: { withoutOffset: WithoutOffset; name?: string }) {
  const { withoutOffset, name } = options;
  const say = (message: string) => (name ? `${name} ${message}` : message);
  const format =
    withoutOffset === 'refuse'
      ? say(`must be an ISO 8601 date-time with an offset, such as ${FORMS}`)
      : say(`must be an ISO 8601 date-time, such as ${FORMS} (without an offset: UTC)`);
  const noOffset = say(`has no offset, and a time without one is ambiguous: add Z for UTC or the offset, such as +03:00 or +0300`);
  return z
    .string({ error: format })
    .regex(DATE_TIME, { error: format })
    .transform((text, ctx) => {
      const read = readIsoTime(text, withoutOffset);
      if ('ms' in read) return read.ms;
      ctx.issues.push({ code: 'custom', input: text, message: read.error === 'no_offset' ? noOffset : format });
      return z.NEVER;
    })
    .meta({
      description:
        withoutOffset === 'refuse'
          ? `ISO 8601 date-time with an offset (${FORMS}); seconds and the offset's colon are optional`
          : `ISO 8601 date-time (${FORMS}); seconds and the offset's colon are optional; without an offset: UTC`,
    });
}
