// HTTP-date parsing (RFC 9110 §5.6.7). Recipients must accept all three forms; anything else is malformed, but for
// one lenient extra: an IMF-fixdate whose zone reads `UTC` instead of `GMT` (the same time; RFC 9110 encourages
// robust parsing, and axios-retry and retry-axios read it, so a server sending it keeps its wait after a switch).
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';
const FORMS = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT (or UTC)
  `${DAY}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} (?:GMT|UTC)`,
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  `(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT`,
  // asctime: Sun Nov  6 08:49:37 1994 (its fields in another order)
  `${DAY} ${MONTH} ( \\d|\\d\\d) ${TIME} (\\d{4})`,
].map((form) => new RegExp(`^${form}$`));

/**
 * Parses an HTTP-date into ms since the epoch, or `undefined` when it is not one of the three forms.
 * `now` decides the century of an RFC 850 two-digit year: a date more than 50 years after `now` is in
 * the most recent past year with those two digits (RFC 9110 §5.6.7).
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  const [imf, rfc850, asctime] = FORMS.map((form) => form.exec(value));
  const fields = imf ?? rfc850 ?? asctime;
  if (!fields) return undefined;
  // [day, month (0-11), year, h, m, s]; asctime has them in another order.
  const [day, month, year, h, m, s] = (asctime ? [2, 1, 6, 3, 4, 5] : [1, 2, 3, 4, 5, 6]).map((group, i) =>
    i === 1 ? (MONTH.indexOf(fields[group] as string) - 1) / 4 : Number(fields[group]),
  ) as [number, number, number, number, number, number];
  const at = (y: number) => Date.UTC(y, month, day, h, m, s);
  let y = year;
  if (rfc850) {
    const current = new Date(now).getUTCFullYear();
    // The timestamp is compared, not the year: 31 Dec of the year 50 years on is already more than 50 years away.
    const limit = new Date(now).setUTCFullYear(current + 50);
    // The candidates run from the next century (in 2099, "00" is 2100, not 2000) down; the century is picked on
    // the raw timestamp (Date.UTC rolls 29 Feb over), then the date itself is validated.
    y += current - (current % 100) + 100;
    while (at(y) > limit) y -= 100;
  }
  // Round trip: Date.UTC silently rolls "31 Feb" into March; such a date is malformed. Second 60 is a leap
  // second: it is valid and lands on the next second.
  const check = new Date(Date.UTC(y, month, day));
  return h > 23 || m > 59 || s > 60 || check.getUTCFullYear() !== y || check.getUTCDate() !== day
    ? undefined
    : at(y);
}
