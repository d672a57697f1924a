/**
 * MongoDB-compatible text processing (text index version 3, language "english").
 *
 * Both engines must agree on what a word is: MongoDB builds its text index with this pipeline, and
 * the services store `searchTerms` computed here, so `$text` candidates and the `searchTerms: { $all }`
 * requirement see the same stems. The pipeline mirrors mongodb/mongo
 * src/mongo/db/fts/fts_unicode_tokenizer.cpp (UnicodeFTSTokenizer::moveNext):
 *   split on delimiters → lower-case → drop stop words → stem (libstemmer "english" = Porter2) →
 *   strip diacritics.
 * The order matters: stop words are matched before diacritics are removed, and the stemmer sees
 * the accented word.
 */
import { createRequire } from 'node:module';

interface SnowballStemmer {
  stem(word: string): string;
}

// snowball-stemmers is CommonJS without type declarations; createRequire keeps its typing local.
const requireCjs = createRequire(import.meta.url);
const { newStemmer } = requireCjs('snowball-stemmers') as { newStemmer: (language: string) => SnowballStemmer };
const stemmer = newStemmer('english');

/**
 * MongoDB's English stop words, verbatim from mongodb/mongo src/mongo/db/fts/stop_words_english.txt
 * (commit 740cc135a3e29c8cf0803a57f052002473a86c3a). MongoDB compares them with the lower-cased
 * token, apostrophes included ("don't" is one token in English, see DELIMITERS below).
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'than',
  'during',
  'himself',
  'your',
  'theirs',
  'most',
  'same',
  "wouldn't",
  'at',
  'it',
  "here's",
  'their',
  'his',
  'an',
  'out',
  'between',
  "doesn't",
  'not',
  'those',
  'only',
  'yourself',
  "mustn't",
  'and',
  "shouldn't",
  'him',
  "you'll",
  'which',
  'more',
  "shan't",
  'after',
  'why',
  'up',
  'further',
  'over',
  'no',
  'its',
  'until',
  'them',
  'you',
  "don't",
  'few',
  "why's",
  "i've",
  'for',
  'ours',
  'some',
  "when's",
  "they've",
  "won't",
  'herself',
  'but',
  'she',
  "he'd",
  "how's",
  'were',
  'how',
  "we've",
  'because',
  "aren't",
  'should',
  'our',
  'each',
  'once',
  "they'd",
  'where',
  'above',
  'there',
  'or',
  "they'll",
  'be',
  'to',
  'are',
  "it's",
  'too',
  'itself',
  'what',
  'whom',
  'has',
  "they're",
  'had',
  "she'd",
  'these',
  'other',
  'when',
  "hasn't",
  'by',
  "we'll",
  'having',
  'then',
  'against',
  "he's",
  'as',
  'is',
  'that',
  "isn't",
  'below',
  'could',
  "wasn't",
  "who's",
  'ourselves',
  'so',
  'any',
  'he',
  'cannot',
  "weren't",
  'was',
  'my',
  'would',
  "we'd",
  'yourselves',
  "where's",
  "couldn't",
  'who',
  "didn't",
  'from',
  "i'm",
  'off',
  'have',
  'hers',
  'i',
  'am',
  'themselves',
  'of',
  'before',
  "i'll",
  'here',
  'while',
  "what's",
  'myself',
  'ought',
  'me',
  'the',
  'into',
  'about',
  'this',
  'do',
  "can't",
  'a',
  'her',
  "that's",
  'did',
  'very',
  'down',
  "you've",
  'we',
  "you're",
  "haven't",
  'on',
  "let's",
  'such',
  'they',
  'in',
  'with',
  'being',
  'doing',
  "she's",
  'yours',
  "hadn't",
  'nor',
  'both',
  'does',
  'own',
  'again',
  "there's",
  "he'll",
  "i'd",
  'under',
  "you'd",
  'through',
  "we're",
  "she'll",
  'been',
  'all',
  'if',
]);

/**
 * MongoDB's token delimiters (mongodb/mongo src/mongo/db/fts/unicode/gen_delimiter_list.py): code
 * points with the Unicode properties White_Space, Dash, Hyphen, Quotation_Mark,
 * Terminal_Punctuation, Pattern_Syntax or STerm — except the ASCII apostrophe, which English keeps
 * inside words. So `_`, `'`, currency signs and emoji are part of a token, while `-`, `.`, `/`, `@`
 * split. `Hyphen` is a deprecated property JavaScript lacks, hence its code points are listed.
 */
const DELIMITER_CLASS =
  '[\\p{White_Space}\\p{Dash}\\p{Quotation_Mark}\\p{Terminal_Punctuation}\\p{Pattern_Syntax}' +
  '\\p{Sentence_Terminal}\\u002D\\u00AD\\u058A\\u1806\\u2010\\u2011\\u2E17\\u30FB\\uFE63\\uFF0D\\uFF65]';
const DELIMITERS = new RegExp(`(?:(?!')${DELIMITER_CLASS})+`, 'u');
/**
 * The same delimiters for ASCII text, as a table by code point (1: a delimiter), taken from the
 * expression above: ASCII text is cut with it in one scan (test/unit/text.test.ts checks that every
 * ASCII code point splits, or not, as on the general path).
 */
const ASCII_DELIMITER = Uint8Array.from({ length: 128 }, (_, code) => (DELIMITERS.test(String.fromCharCode(code)) ? 1 : 0));

const DIACRITIC = /\p{Diacritic}/u;
// Accented letters need a look-up only when they are not plain ASCII.
// eslint-disable-next-line no-control-regex -- the class is all of ASCII: the test is for any character past it
const NEEDS_FOLDING = /[^\u0000-\u007F]/u;

const diacriticFreeCache = new Map<string, string>();

/**
 * MongoDB's codepointRemoveDiacritics (gen_diacritic_map.py): a Diacritic code point disappears; a
 * code point whose decomposition minus diacritics recomposes to one code point maps to it; any
 * other code point (e.g. "ø", "ß") is kept.
 */
function removeDiacritic(codePoint: string): string {
  const cached = diacriticFreeCache.get(codePoint);
  if (cached !== undefined) return cached;
  let result: string;
  if (DIACRITIC.test(codePoint)) {
    result = '';
  } else {
    const stripped = [...codePoint.normalize('NFD')].filter((c) => !DIACRITIC.test(c)).join('');
    const recomposed = stripped.normalize('NFC');
    result = [...recomposed].length === 1 ? recomposed : codePoint;
  }
  diacriticFreeCache.set(codePoint, result);
  return result;
}

function stripDiacritics(word: string): string {
  if (!NEEDS_FOLDING.test(word)) return word;
  let out = '';
  for (const codePoint of word) out += removeDiacritic(codePoint);
  return out;
}

/**
 * Per-code-point lower-casing approximates MongoDB's simple case folding: a mapping that would
 * expand one code point into several (e.g. "İ") is not a simple folding, so the code point stays.
 */
function lowerCase(token: string): string {
  if (!NEEDS_FOLDING.test(token)) return token.toLowerCase();
  let out = '';
  for (const codePoint of token) {
    const lower = codePoint.toLowerCase();
    out += [...lower].length === 1 ? lower : codePoint;
  }
  return out;
}

const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();
const ALL_DIGITS = /^[0-9]+$/;

/** The index term of one lower-cased, non-stop-word token. */
function termOf(lowerToken: string): string {
  // Numbers (years, house numbers, editions) are their own stem: no stemmer call, and no cache entry
  // each, which would flush the words out of the cache during a bulk load.
  if (ALL_DIGITS.test(lowerToken)) return lowerToken;
  const cached = stemCache.get(lowerToken);
  if (cached !== undefined) return cached;
  const term = stripDiacritics(stemmer.stem(lowerToken));
  // A bounded cache: documents are re-indexed on every update, queries repeat the same few words.
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(lowerToken, term);
  return term;
}

/** The raw tokens of a text, split the way MongoDB's English tokenizer splits (no other change). */
function rawTokens(text: string): string[] {
  return text.split(DELIMITERS).filter((token) => token !== '');
}

/**
 * The index terms of a text as MongoDB's English text index computes them: case- and
 * diacritic-insensitive Porter2 stems without stop words, in order, duplicates kept.
 * (Texts are not remembered: since the embedded text index adds a document only when it is next
 * read, a write no longer tokenizes the same string twice in a row, and remembering every text of a
 * bulk load — each seen once — cost more than tokenizing them.)
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  if (NEEDS_FOLDING.test(text)) {
    for (const token of rawTokens(text)) addTerm(lowerCase(token), terms);
    return terms;
  }
  // ASCII (nearly every title and description): the text lower-cased once and cut at the delimiters
  // in one scan, several times cheaper than a split by a regular expression and a lower-casing per token.
  const lower = text.toLowerCase();
  let start = 0;
  for (let i = 0; i < lower.length; i++) {
    if (ASCII_DELIMITER[lower.charCodeAt(i)] === 1) {
      if (i > start) addTerm(lower.slice(start, i), terms);
      start = i + 1;
    }
  }
  if (lower.length > start) addTerm(start === 0 ? lower : lower.slice(start), terms);
  return terms;
}

/** Appends the term of a lower-cased token, unless it is a stop word (or stems to nothing). */
function addTerm(lower: string, terms: string[]): void {
  if (ENGLISH_STOP_WORDS.has(lower)) return;
  const term = termOf(lower);
  if (term !== '') terms.push(term);
}

/** Terms of the texts of searchTermsOf told apart by scanning the list, at most. */
const SCANNED_TERMS = 32;

/** The unique terms of all given texts: what services store in a document's `searchTerms`. */
export function searchTermsOf(...texts: Array<string | null | undefined>): string[] {
  const terms: string[] = [];
  // A title and a description make a dozen terms, which a scan of the list tells apart faster than
  // a set; past a few dozen the set takes over.
  let seen: Set<string> | null = null;
  for (const text of texts) {
    if (typeof text !== 'string') continue;
    for (const term of tokenize(text)) {
      if (seen !== null) {
        if (seen.has(term)) continue;
        seen.add(term);
      } else if (terms.includes(term)) continue;
      else if (terms.length === SCANNED_TERMS) seen = new Set(terms).add(term);
      terms.push(term);
    }
  }
  return terms;
}

/** The unique terms of a user's query (for `searchTerms: { $all: searchWords(query) }`). */
export function searchWords(query: string): string[] {
  return searchTermsOf(query);
}

/**
 * The query's words as a `$text.$search` string: the original (unstemmed) tokens separated by
 * spaces. MongoDB stems `$search` itself, and Porter2 is not idempotent ("agreed" → "agre" →
 * "agr"), so passing already-stemmed words would miss documents. Tokens never contain `-` or `"`
 * (both are delimiters), so the result holds no negation or phrase.
 */
export function textSearchOf(query: string): string {
  return rawTokens(query).join(' ');
}
