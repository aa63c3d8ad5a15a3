/** Generated passwords hold an upper-case letter, a lower-case one, a digit and a symbol. */
export const DATABASE_PASSWORD_LENGTH = 18;

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
// Symbols that need no quoting in a shell, a connection string's query or a config file.
const SYMBOLS = '!#%*+-=?@^_';
const ALL = UPPER + LOWER + DIGITS + SYMBOLS;

/** A uniformly random integer below `bound`, from the browser's cryptographic generator. */
function randomBelow(bound: number): number {
  const limit = Math.floor(0x1_0000_0000 / bound) * bound;
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    const value = buffer[0] ?? 0;
    if (value < limit) return value % bound;
  }
}

const pick = (alphabet: string) => alphabet.charAt(randomBelow(alphabet.length));

/** A random password of `length` characters (at least 4) with one of each character class. */
export function generatePassword(length = DATABASE_PASSWORD_LENGTH): string {
  const characters = [pick(UPPER), pick(LOWER), pick(DIGITS), pick(SYMBOLS)];
  while (characters.length < length) characters.push(pick(ALL));
  for (let i = characters.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [characters[i], characters[j]] = [characters[j] as string, characters[i] as string];
  }
  return characters.join('');
}
