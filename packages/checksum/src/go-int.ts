/**
 * Integers read and printed as Go reads and prints them, so ids come out exactly as Tengine's Go
 * code builds them.
 */

const goIntPattern = /^[+-]?[0-9]+$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/**
 * Parses `text` the way Go's `strconv.Atoi` does on 64-bit platforms and returns the value printed
 * back with `%d`, or undefined when Atoi would fail.
 *
 * Tengine builds ids with `fmt.Sprintf("%d-%d", Atoi(suffix), Atoi(version))`, so "+7" and "007"
 * both become "7" and "-0" becomes "0". BigInt keeps values beyond 2^53 exact; beyond int64 Atoi
 * reports a range error, which Tengine treats like any other parse failure.
 */
export function parseGoInt(text: string): string | undefined {
  if (!goIntPattern.test(text)) return undefined;
  const value = BigInt(text);
  if (value < int64Min || value > int64Max) return undefined;
  return value.toString();
}
