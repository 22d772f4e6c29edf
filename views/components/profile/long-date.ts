// A date as the profile screens write it ("2 January 2026" in the page's language). V8 builds a new
// Intl.DateTimeFormat for every toLocaleDateString call with options (~95 µs, against ~2 µs to format with
// a kept one), so one formatter is kept per language (the supported languages: a handful).
const formatters = new Map<string, Intl.DateTimeFormat>();

export function longDate(lang: string, iso: string): string {
  let format = formatters.get(lang);
  if (!format) {
    format = new Intl.DateTimeFormat(lang, { dateStyle: 'long' });
    formatters.set(lang, format);
  }
  const date = new Date(iso);
  // format() throws on an invalid date, where toLocaleDateString said "Invalid Date": keep it saying so.
  return Number.isNaN(date.getTime()) ? String(date) : format.format(date);
}
