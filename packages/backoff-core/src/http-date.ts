// HTTP-date parsing (RFC 9110 §5.6.7). Recipients must accept all three forms; anything else is malformed.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
// Sun Nov  6 08:49:37 1994
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

function build(
  year: number,
  month: string,
  day: number,
  h: number,
  m: number,
  s: number,
): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  // Second 60 is a leap second: it is valid and lands on the next second.
  if (day < 1 || h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, day, h, m, s);
  // Round trip: Date.UTC silently rolls "31 Feb" into March; such a date is malformed.
  const check = new Date(Date.UTC(year, monthIndex, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== monthIndex || check.getUTCDate() !== day) {
    return undefined;
  }
  return ms;
}

/**
 * Parses an HTTP-date into ms since the epoch, or `undefined` when it is not one of the three forms.
 * `now` decides the century of an RFC 850 two-digit year: a date more than 50 years after `now` is in
 * the most recent past year with those two digits (RFC 9110 §5.6.7).
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match) {
    const [, day, month, year, h, m, s] = match as unknown as string[];
    return build(Number(year), month as string, Number(day), Number(h), Number(m), Number(s));
  }
  match = RFC850.exec(value);
  if (match) {
    const [, day, month, yy, h, m, s] = match as unknown as string[];
    const currentYear = new Date(now).getUTCFullYear();
    const at = (y: number) => build(y, month as string, Number(day), Number(h), Number(m), Number(s));
    // The timestamp is compared, not the year: 31 Dec of the year 50 years on is already more than 50 years away.
    const limit = new Date(now);
    limit.setUTCFullYear(currentYear + 50);
    // The candidate in the next century covers late-century clocks: in 2099, "00" is 2100, not 2000.
    const century = currentYear - (currentYear % 100);
    // The century is picked on the raw timestamp (Date.UTC rolls 29 Feb over), then the date itself is validated.
    const years = [century + 100, century, century - 100].map((c) => c + Number(yy));
    const year = years.find(
      (y) =>
        Date.UTC(y, MONTHS.indexOf(month as string), Number(day), Number(h), Number(m), Number(s)) <=
        limit.getTime(),
    );
    return year === undefined ? undefined : at(year);
  }
  match = ASCTIME.exec(value);
  if (match) {
    const [, month, day, h, m, s, year] = match as unknown as string[];
    return build(
      Number(year),
      month as string,
      Number((day as string).trim()),
      Number(h),
      Number(m),
      Number(s),
    );
  }
  return undefined;
}
