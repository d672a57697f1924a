import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENGLISH_STOP_WORDS, searchTermsOf, searchWords, textSearchOf, tokenize } from '../../src/lib/text.js';

describe('tokenize', () => {
  it("drops every stop word, in any case, and keeps words that only share one's length and first letter", () => {
    for (const word of ENGLISH_STOP_WORDS) {
      expect(tokenize(word), word).toEqual([]);
      expect(tokenize(`jazz ${word.toUpperCase()} jazz`), word).toEqual(['jazz', 'jazz']);
    }
    // "thee" and "them", "abut" and "also", "yourselvez" and "yourselves": same length and first letter.
    expect(tokenize('thee abut yourselvez')).toEqual(['thee', 'abut', 'yourselvez']);
    expect(tokenize('ourselvesx themselvesxy')).toEqual(['ourselvesx', 'themselvesxi']);
  });
  it.each<[string, string, string[]]>([
    ['lower-cases', 'JAZZ Night', ['jazz', 'night']],
    ['strips diacritics: Café matches cafe', 'Café CAFÉ cafe', ['cafe', 'cafe', 'cafe']],
    ['strips diacritics of other letters', 'Ångström naïve Zürich', ['angstrom', 'naiv', 'zurich']],
    ['keeps letters without a decomposition', 'Øre straße', ['øre', 'straße']],
    ['stems: running and runs → run', 'running runs', ['run', 'run']],
    ['stems plurals and suffixes', 'concerts festivals generously', ['concert', 'festiv', 'generous']],
    ['drops stop words', 'the music of the night', ['music', 'night']],
    ['drops stop words with apostrophes', "don't you're it's music", ['music']],
    ['drops stop words whatever their case', 'THE And OF', []],
    ['splits on punctuation', 'jazz,blues;soul/funk.rock!', ['jazz', 'blue', 'soul', 'funk', 'rock']],
    ['splits on hyphens and dashes', 'open-air late–night', ['open', 'air', 'late', 'night']],
    ['splits on quotes and brackets', '"swing" (bebop) [cool]', ['swing', 'bebop', 'cool']],
    ['splits e-mail addresses and URLs', 'info@jazz.example https://jazz.example/shows', ['info', 'jazz', 'exampl', 'https', 'jazz', 'exampl', 'show']],
    ['keeps numbers', 'Route 66 opens 2025', ['rout', '66', 'open', '2025']],
    ['splits decimal numbers at the point', 'v1.2', ['v1', '2']],
    // MongoDB's English tokenizer keeps apostrophes and underscores inside words.
    ["keeps a possessive's stem", "John's", ['john']],
    ['keeps underscores', 'foo_bar', ['foo_bar']],
    ['splits on any whitespace', 'a\tjazz\nblues\u00a0soul', ['jazz', 'blue', 'soul']],
    ['handles non-Latin scripts', 'Ελληνικά музыка', ['ελληνικα', 'музыка']],
    ['keeps duplicates', 'jazz Jazz JAZZ', ['jazz', 'jazz', 'jazz']],
    ['empty input', '', []],
    ['only delimiters', ' .,;!?- ', []],
  ])('%s', (_name, input, expected) => {
    expect(tokenize(input)).toEqual(expected);
  });

  it('gives the same terms for a text asked again, also after many other texts and for long texts', () => {
    const words = ['Jazz', 'concerts', 'running', 'Café', 'the', 'Zürich', 'open-air', '2025', "John's"];
    const texts = Array.from({ length: 10_000 }, (_, i) => `${words[i % words.length]} ${words[(i * 7) % words.length]} ${i}`);
    const first = texts.map((text) => [...tokenize(text)]);
    // Each text right after it was tokenized, and again after ten thousand others.
    texts.forEach((text, i) => {
      expect(tokenize(text)).toEqual(first[i]);
      expect(tokenize(text)).toEqual(first[i]);
    });
    for (let i = 0; i < 100; i++) expect(tokenize(texts[i]!)).toEqual(first[i]);
    expect(tokenize(texts[0]!)).toEqual(['jazz', 'jazz', '0']);
    const long = `${'Concerts running '.repeat(400)}end`;
    expect(tokenize(long)).toEqual([...Array.from({ length: 400 }, () => ['concert', 'run']).flat(), 'end']);
    expect(tokenize(long)).toEqual(tokenize(long));
  });
});

describe('tokenize: ASCII text', () => {
  it('splits and folds ASCII text as the general (Unicode) path does', () => {
    // A trailing non-ASCII word sends the same text down the general path; its own term is last.
    const general = (text: string) => tokenize(`${text} é`).slice(0, -1);
    const words = fc.constantFrom('Jazz', "don't", 'THE', 'night', 'run_ning', 'café', '42', 'x');
    const text = fc.array(fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 6 }), words), { maxLength: 8 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        // eslint-disable-next-line no-control-regex -- the class is all of ASCII
        fc.pre(!/[^\u0000-\u007f]/.test(t));
        expect(tokenize(t)).toEqual(general(t));
      }),
      { numRuns: 2000 },
    );
    // Every ASCII delimiter, between two words.
    for (let code = 0; code < 128; code++) {
      const t = `alpha${String.fromCharCode(code)}beta`;
      expect(tokenize(t), JSON.stringify(t)).toEqual(general(t));
    }
  });
});

describe('searchTermsOf', () => {
  it.each<[string, Array<string | null | undefined>, string[]]>([
    ['unique terms of every text in order', ['Jazz night', 'Late jazz', 'Nights'], ['jazz', 'night', 'late']],
    ['skips null and undefined', [null, 'Café', undefined], ['cafe']],
    ['no text', [], []],
    ['stop words only', ['the', 'and of'], []],
  ])('%s', (_name, texts, expected) => {
    expect(searchTermsOf(...texts)).toEqual(expected);
  });

  it('keeps each term once, in order of first use, also past the terms it tells apart by scanning', () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}x`);
    for (const count of [1, 31, 32, 33, 80]) {
      const used = words.slice(0, count);
      // Every word three times, across three texts, in different orders.
      const texts = [used.join(' '), [...used].reverse().join(' '), used.map((w, i) => used[(i * 7) % count]).join(' ')];
      const expected = [...new Set(texts.flatMap((text) => tokenize(text)))];
      expect(expected).toHaveLength(count);
      expect(searchTermsOf(...texts), `${count} words`).toEqual(expected);
    }
  });
});

describe('searchWords', () => {
  it.each<[string, string, string[]]>([
    ['unique stems of the query', 'Running RUNS run', ['run']],
    ['diacritic-insensitive', 'CAFÉ', ['cafe']],
    ['without stop words', 'the jazz of berlin', ['jazz', 'berlin']],
    ['stop words only', 'the and', []],
    ['empty', '', []],
  ])('%s', (_name, query, expected) => {
    expect(searchWords(query)).toEqual(expected);
  });
});

describe('textSearchOf', () => {
  it.each<[string, string, string]>([
    ['keeps the words unstemmed', 'Agreed, universal!', 'Agreed universal'],
    ['removes phrase quotes and negation dashes', '"jazz night" -blues', 'jazz night blues'],
    ['empty', '  ', ''],
  ])('%s', (_name, query, expected) => {
    expect(textSearchOf(query)).toBe(expected);
  });

  it('yields the same stems as searchWords', () => {
    const query = 'The Agreed universal Café-concerts';
    expect(searchWords(textSearchOf(query))).toEqual(searchWords(query));
  });
});

describe('ENGLISH_STOP_WORDS', () => {
  it("holds MongoDB's list", () => {
    expect(ENGLISH_STOP_WORDS.size).toBe(174);
    for (const word of ['the', 'and', "don't", 'cannot', 'ought']) expect(ENGLISH_STOP_WORDS.has(word)).toBe(true);
    expect(ENGLISH_STOP_WORDS.has('music')).toBe(false);
  });
});
